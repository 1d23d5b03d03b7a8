import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// `DiskCache.verify`: what it finds, what it removes, and what it leaves alone.
@Suite("Cache verify")
struct CacheVerifyTests {
    struct Fixture {
        let folder: URL
        let cache: DiskCache

        init() throws {
            folder = try temporaryFolder()
            cache = try DiskCache(directory: folder)
        }

        @discardableResult
        func store(_ name: String, size: Int = 2000, seed: UInt8 = 1) throws -> CacheEntry {
            let data = fakePNG(size: size, seed: seed)
            let file = try cache.makeTemporaryFile()
            try file.write(data)
            try file.finish()
            let url = URL(string: "http://h/\(name)")!
            let entry = CacheEntry(
                url: url, finalURL: url, contentType: nil, format: .png, byteCount: Int64(size), sha256: FileDigestForTests.sha256(data),
                etag: nil, lastModified: nil, fetchedAt: Date(), lastAccessedAt: Date(), freshUntil: Date())
            return try cache.store(file, as: entry)!
        }

        func path(_ relative: String) -> URL { folder.appendingPathComponent(relative) }
    }

    @Test func aHealthyCacheHasNoProblems() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        try fixture.store("a.png", seed: 1)
        try fixture.store("b.png", size: 3000, seed: 2)
        try fixture.store("c.png", seed: 1)  // shares a.png's blob
        let report = try fixture.cache.verify()
        #expect(report.problems.isEmpty)
        #expect(report.entries == 3)
        #expect(report.blobs == 2)
        #expect(report.bytes == 5000)
    }

    @Test func aDamagedBlobGoesWithEveryEntryThatUsesIt() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let a = try fixture.store("a.png", seed: 1)
        try fixture.store("c.png", seed: 1)
        try fixture.store("b.png", seed: 2)
        let blob = fixture.cache.blobURL(for: a)
        var bytes = try Data(contentsOf: blob)
        bytes[500] ^= 0x01
        try bytes.write(to: blob)

        let report = try fixture.cache.verify()
        #expect(report.problems.map(\.kind) == [.damagedBlob, .damagedBlob])
        #expect(Set(report.problems.compactMap(\.url?.lastPathComponent)) == ["a.png", "c.png"])
        #expect(report.problems[0].path == "v1/blobs/\(a.sha256.prefix(2))/\(a.sha256)")
        #expect(report.problems[0].detail == "content does not match its SHA-256")
        #expect(!FileManager.default.fileExists(atPath: blob.path))
        #expect(fixture.cache.entries().map(\.url.lastPathComponent) == ["b.png"])
        #expect(try fixture.cache.verify().problems.isEmpty)
    }

    @Test func metadataWithoutItsBlobAndBlobsWithoutMetadata() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let a = try fixture.store("a.png", seed: 1)
        let b = try fixture.store("b.png", seed: 2)
        // a.png's blob vanishes; b.png's metadata vanishes (its blob is orphaned).
        try FileManager.default.removeItem(at: fixture.cache.blobURL(for: a))
        try FileManager.default.removeItem(at: fixture.cache.entryURL(for: b.url))
        // A stray file in the blob folder, outside any shard.
        try Data("junk".utf8).write(to: fixture.path("v1/blobs/stray"))

        let report = try fixture.cache.verify()
        let kinds = Dictionary(grouping: report.problems, by: \.kind)
        #expect(kinds[.missingBlob]?.map(\.url) == [a.url])
        #expect(kinds[.orphanedBlob]?.map(\.path) == ["v1/blobs/\(b.sha256.prefix(2))/\(b.sha256)"])
        #expect(kinds[.notAFile]?.map(\.path) == ["v1/blobs/stray"])
        #expect(kinds[.notAFile]?.first?.detail == "a file where a folder belongs")
        #expect(report.problems.count == 3)
        #expect(fixture.cache.entries().isEmpty)
        #expect(fixture.cache.totalSize == 0)
    }

    @Test func unreadableAndMisplacedMetadataGo() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let a = try fixture.store("a.png", seed: 1)
        try Data("{\"url\": 12".utf8).write(to: fixture.path("v1/entries/0000.json"))
        // A valid entry under another URL's name can never be looked up.
        try FileManager.default.copyItem(at: fixture.cache.entryURL(for: a.url), to: fixture.path("v1/entries/1111.json"))
        try Data("not json".utf8).write(to: fixture.path("v1/counters.json"))

        let report = try fixture.cache.verify()
        let byPath = Dictionary(uniqueKeysWithValues: report.problems.map { ($0.path, $0) })
        #expect(byPath["v1/entries/0000.json"]?.kind == .unreadableEntry)
        #expect(byPath["v1/entries/0000.json"]?.detail == "not valid entry metadata")
        #expect(byPath["v1/entries/1111.json"]?.detail == "file name does not match its URL")
        #expect(byPath["v1/counters.json"]?.kind == .unreadableCounters)
        #expect(report.problems.count == 3)
        #expect(fixture.cache.entries().map(\.url) == [a.url])
        #expect(fixture.cache.counters() == .zero)
    }

    /// Litter of a killed process is upkeep, not damage: removed and counted, and the cache is sound.
    @Test func abandonedTemporaryFilesGoButLiveOnesStay() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        try Data(count: 10).write(to: fixture.path("v1/tmp/4194305-dead.part"))
        try Data(count: 10).write(to: fixture.path("v1/.counters.json.4194305.1.tmp"))
        // This process is alive: its download in progress is not litter.
        let live = try fixture.cache.makeTemporaryFile()
        try live.write(Data(count: 10))

        let report = try fixture.cache.verify()
        #expect(report.problems.isEmpty)
        #expect(report.abandonedFiles == 2)
        #expect(!FileManager.default.fileExists(atPath: fixture.path("v1/tmp/4194305-dead.part").path))
        #expect(!FileManager.default.fileExists(atPath: fixture.path("v1/.counters.json.4194305.1.tmp").path))
        #expect(FileManager.default.fileExists(atPath: live.url.path))
    }

    @Test func aBlobRepairedBeforeTheLockIsKept() async throws {
        // The scan suspects the blob, but by the time verify holds the lock another process has
        // renamed good bytes over it: nothing may be removed. Simulated by holding the lock while
        // verify scans, repairing the blob, then letting verify confirm.
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let a = try fixture.store("a.png", seed: 1)
        let blob = fixture.cache.blobURL(for: a)
        let good = try Data(contentsOf: blob)
        var bad = good
        bad[9] ^= 0xFF
        try bad.write(to: blob)

        let other = FileLock(name: "lock", in: fixture.cache.root)
        let lockInode = try #require(
            (try FileManager.default.attributesOfItem(atPath: fixture.path("v1/lock").path))[.systemFileNumber] as? UInt64)
        let report = try await onThread {
            let verifying = try other.withExclusiveLock { () throws -> Task<VerifyReport, any Error> in
                let task = Task.detached { try await onThread { try fixture.cache.verify() } }
                // Once verify waits for the lock (the kernel lists its request as blocked, `->`), its
                // scan, which takes no lock, is over: it has read the damaged blob.
                let deadline = ContinuousClock.now + .seconds(20)
                while !Self.aLockWaiterIsBlocked(onInode: lockInode), ContinuousClock.now < deadline { usleep(1000) }
                try good.write(to: blob)
                return task
            }
            return verifying
        }.value
        #expect(report.problems.isEmpty)
        #expect(fixture.cache.entries().count == 1)
        #expect(try Data(contentsOf: blob) == good)
    }

    /// Whether some process waits for a lock on the file with inode `inode`: a line of
    /// /proc/locks whose request is blocked (`->`) and that names `…:inode`.
    static func aLockWaiterIsBlocked(onInode inode: UInt64) -> Bool {
        guard let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        return locks.split(separator: "\n").contains { line in
            line.contains("->") && line.split(separator: " ").contains { $0.hasSuffix(":\(inode)") }
        }
    }
}
