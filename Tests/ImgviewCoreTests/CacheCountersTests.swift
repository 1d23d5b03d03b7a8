import Foundation
import ImgviewCurl
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline

/// The disk cache's persistent counters, as the pipeline records them over loopback.
@Suite("Cache counters")
struct CacheCountersTests {
    let date = ManualDate()

    func makePipeline(cache folder: URL, sizeLimit: Int64 = 1 << 30, offline: Bool = false) throws -> ImagePipeline {
        let disk = try DiskCache(directory: folder, sizeLimit: sizeLimit, now: { [date] in date.now })
        return ImagePipeline.fetching(
            .init(
                dataLoader: CurlDataLoader(idleTimeout: 5), diskCache: disk, retry: RetryPolicy(maxRetries: 0),
                isOffline: offline, now: { [date] in date.now }))
    }

    func withServer(_ body: (LoopbackServer, URL) async throws -> Void) async throws {
        try await withLoopbackServer(body)
    }

    @Test func hitsMissesRevalidationsAndEvictionsAddUpAcrossProcesses() async throws {
        try await withServer { server, folder in
            server.publish(.data(fakePNG(size: 30_000, seed: 1), contentType: "image/png", cacheControl: "max-age=60"), at: "/a.png")
            server.publish(.data(fakePNG(size: 30_000, seed: 2), contentType: "image/png"), at: "/b.png")
            server.publish(.data(fakePNG(size: 100, seed: 3), contentType: "image/png", cacheControl: "no-store"), at: "/n.png")
            let a = server.url(for: "/a.png")
            let counters = { try DiskCache(directory: folder).counters() }

            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: a))
            #expect(try counters() == CacheCounters(misses: 1))
            // Each pipeline stands for a new process: its memory cache is empty, so the disk answers.
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: a))
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: a))
            #expect(try counters() == CacheCounters(hits: 2, misses: 1))
            date.advance(by: 61)
            #expect(try await makePipeline(cache: folder).bytes(for: ImageRequest(url: a)).source == .revalidated)
            #expect(try counters() == CacheCounters(hits: 2, misses: 1, revalidations: 1))

            // Not stored (no-store), a failure, an offline miss and a reload: misses, except the reload.
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: server.url(for: "/n.png")))
            _ = try? await makePipeline(cache: folder).bytes(for: ImageRequest(url: server.url(for: "/missing.png")))
            _ = try? await makePipeline(cache: folder, offline: true).bytes(for: ImageRequest(url: server.url(for: "/b.png")))
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: a, cachePolicy: .reload))
            #expect(try counters() == CacheCounters(hits: 2, misses: 4, revalidations: 1))

            // A limit that holds one image: storing b evicts a.
            _ = try await makePipeline(cache: folder, sizeLimit: 40_000).bytes(for: ImageRequest(url: server.url(for: "/b.png")))
            #expect(try counters() == CacheCounters(hits: 2, misses: 5, revalidations: 1, evictions: 1))
        }
    }

    /// An entry's count of revalidations is its file's to say: one at the most an Int holds stays there.
    @Test func aRevalidationCountAtItsMostStaysThere() async throws {
        try await withServer { server, folder in
            server.publish(.data(fakePNG(size: 1_000, seed: 1), contentType: "image/png", cacheControl: "max-age=60"), at: "/a.png")
            let a = server.url(for: "/a.png")
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: a))
            let disk = try DiskCache(directory: folder)
            var entry = try #require(disk.entry(for: a))
            entry.revalidations = Int.max
            try disk.renew(entry)
            date.advance(by: 61)
            #expect(try await makePipeline(cache: folder).bytes(for: ImageRequest(url: a)).source == .revalidated)
            #expect(disk.entry(for: a)?.revalidations == Int.max)
        }
    }

    @Test func aFetchRecordsPixelSizesAndFillsThemInForOldEntries() async throws {
        try await withServer { server, folder in
            let png = try Data(contentsOf: ImageDimensionsTests.file("Assets/images/03_chelsea_cat.png"))
            server.publish(.data(png, contentType: "image/png"), at: "/cat.png")
            let url = server.url(for: "/cat.png")
            let first = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            #expect(first.entry.dimensions == ImageDimensions(width: 451, height: 300))
            let disk = try DiskCache(directory: folder)
            #expect(disk.entry(for: url)?.dimensions == ImageDimensions(width: 451, height: 300))

            #expect(disk.entry(for: url)?.probe?.format == .png)

            // An entry written before the probe was kept gets it on its next use.
            var old = disk.entry(for: url)!
            old.probe = nil
            try disk.renew(old)
            #expect(disk.entry(for: url)?.dimensions == nil && disk.entry(for: url)?.probe == nil)
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            #expect(disk.entry(for: url)?.dimensions == ImageDimensions(width: 451, height: 300))
            #expect(disk.entry(for: url)?.probe == first.probe)
        }
    }

    @Test func oldEntriesWithoutTheNewFieldsStillDecode() throws {
        let json = """
            {"byteCount":5,"contentType":"image/png","etag":"\\"x\\"","fetchedAt":"2025-01-01T00:00:00Z","finalURL":"http://h/a.png",\
            "format":"png","freshUntil":"2025-01-01T00:30:00Z","lastAccessedAt":"2025-01-01T00:00:00Z","revalidations":0,\
            "sha256":"ab","url":"http://h/a.png"}
            """
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let entry = try decoder.decode(CacheEntry.self, from: Data(json.utf8))
        #expect(entry.dimensions == nil)
        #expect(entry.etag == "\"x\"")
    }

    @Test func concurrentWritersLoseNoIncrement() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Separate DiskCache instances open the lock file separately, so flock excludes them as it
        // does separate processes (the CLI tests run real processes too).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                let cache = try DiskCache(directory: folder)
                group.addTask {
                    try await onThread {
                        for _ in 0..<50 {
                            cache.recordMiss()
                            try cache.withLock { cache.addToCounters(CacheCounters(hits: 2)) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try DiskCache(directory: folder).counters() == CacheCounters(hits: 400, misses: 200))
    }
}
