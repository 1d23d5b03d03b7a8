import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

@Suite("Disk cache")
struct DiskCacheTests {
    func entry(_ url: String, _ data: Data, at date: Date) -> CacheEntry {
        CacheEntry(
            url: URL(string: url)!, finalURL: URL(string: url)!, contentType: "image/png", format: .png, byteCount: Int64(data.count),
            sha256: FileDigestForTests.sha256(data), etag: nil, lastModified: nil, fetchedAt: date, lastAccessedAt: date,
            freshUntil: date.addingTimeInterval(60))
    }

    func store(_ cache: DiskCache, _ url: String, _ data: Data, at date: Date) throws -> CacheEntry? {
        let file = try cache.makeTemporaryFile()
        try file.write(data)
        try file.finish()
        return try cache.store(file, as: entry(url, data, at: date))
    }

    @Test func aRememberedBodyIsUsedWithoutAskingWhileFreshOrOffline() {
        let fetched = Date(timeIntervalSince1970: 1_000_000)
        let kept = entry("https://example.com/a.png", Data("a".utf8), at: fetched)
        #expect(kept.isUsableWithoutAsking(offline: false, at: fetched.addingTimeInterval(59)))
        #expect(!kept.isUsableWithoutAsking(offline: false, at: fetched.addingTimeInterval(60)), "stale: ask the server")
        #expect(kept.isUsableWithoutAsking(offline: true, at: fetched.addingTimeInterval(86_400)), "offline, nobody to ask")
    }

    @Test func staysWithinItsLimitAfterEveryWrite() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 100_000)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<60 {
            let size = Int.random(in: 1...40_000, using: &generator)
            _ = try store(
                cache, "http://h/\(index % 25).png", fakePNG(size: size, seed: UInt8(index)), at: Date(timeIntervalSince1970: Double(index))
            )
            #expect(cache.totalSize <= 100_000)
            // Every entry has its blob, and every blob an entry.
            let entries = cache.entries()
            for entry in entries { #expect(FileManager.default.fileExists(atPath: cache.blobURL(for: entry).path)) }
            #expect(Set(entries.map(\.sha256)).count == blobCount(folder))
        }
    }

    @Test func evictsTheLeastRecentlyUsedFirst() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 25_000)
        _ = try store(cache, "http://h/a.png", fakePNG(size: 10_000, seed: 1), at: Date(timeIntervalSince1970: 1))
        _ = try store(cache, "http://h/b.png", fakePNG(size: 10_000, seed: 2), at: Date(timeIntervalSince1970: 2))
        cache.touch(cache.entry(for: URL(string: "http://h/a.png")!)!)
        _ = try store(cache, "http://h/c.png", fakePNG(size: 10_000, seed: 3), at: Date(timeIntervalSince1970: 3))
        #expect(Set(cache.entries().map(\.url.lastPathComponent)) == ["a.png", "c.png"])
    }

    @Test func aBodyLargerThanTheLimitIsNotStored() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 1000)
        #expect(try store(cache, "http://h/a.png", fakePNG(size: 2000), at: Date()) == nil)
        #expect(cache.entries().isEmpty)
    }

    @Test func abandonedDownloadsAndOrphanBlobsAreCleanedUp() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 15_000)
        // A download left by a process that no longer exists (pid 2^22 + 1 is above Linux's pid_max default).
        let abandoned = folder.appendingPathComponent("v1/tmp/4194305-dead.part")
        try Data("partial".utf8).write(to: abandoned)
        // A blob whose entry was never written (a kill between the two renames).
        let orphan = folder.appendingPathComponent("v1/blobs/ff/ff00")
        try FileManager.default.createDirectory(at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fakePNG(size: 9000).write(to: orphan)
        _ = try store(cache, "http://h/a.png", fakePNG(size: 9000, seed: 4), at: Date())
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(cache.entries().count == 1)
    }

    @Test func anUnwritableFolderIsAClearError() throws {
        let error = #expect(throws: DiskCacheError.self) { try DiskCache(directory: URL(fileURLWithPath: "/proc/imgview-cache")) }
        #expect(error?.message.hasPrefix("cache /proc/imgview-cache: cannot be used") == true)
        #expect(error?.exitStatus == .cache)
    }

    func blobCount(_ folder: URL) -> Int {
        let blobs = folder.appendingPathComponent("v1/blobs")
        return ((try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) ?? []).reduce(0) { count, shard in
            count + ((try? FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(shard).path))?.count ?? 0)
        }
    }
}

enum FileDigestForTests {
    static func sha256(_ data: Data) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgview-digest-\(UUID().uuidString)")
        try! data.write(to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try! FileDigest.sha256(of: folder)
    }
}
