import Dispatch
import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// The disk cache's size ledger (`v1/size`): the running total a store adds to instead of
/// measuring every blob, kept right across writers and set right when it cannot be trusted.
@Suite("Cache size ledger")
struct CacheSizeLedgerTests {
    /// A body of `size` bytes that no other (index, size) pair shares.
    func body(_ index: Int, size: Int) -> Data {
        var data = fakePNG(size: size)
        withUnsafeBytes(of: UInt64(index).bigEndian) { data.replaceSubrange(8..<16, with: $0) }
        return data
    }

    @discardableResult
    func store(_ cache: DiskCache, _ url: String, _ data: Data, at date: Date = Date()) throws -> CacheEntry? {
        let file = try cache.makeTemporaryFile()
        try file.write(data)
        try file.finish()
        let entry = CacheEntry(
            url: URL(string: url)!, finalURL: URL(string: url)!, contentType: "image/png", format: .png, byteCount: Int64(data.count),
            sha256: FileDigestForTests.sha256(data), etag: nil, lastModified: nil, fetchedAt: date, lastAccessedAt: date,
            freshUntil: date.addingTimeInterval(60))
        return try cache.store(file, as: entry)
    }

    func ledgerFile(_ folder: URL) -> URL { folder.appendingPathComponent("v1/size") }

    /// Every entry has its blob and every blob an entry.
    func expectConsistent(_ cache: DiskCache, _ sourceLocation: SourceLocation = #_sourceLocation) {
        let entries = cache.entries()
        for entry in entries { #expect(cache.hasBlob(entry), sourceLocation: sourceLocation) }
        #expect(Set(entries.map(\.sha256)) == Set(cache.blobSizes().keys), sourceLocation: sourceLocation)
    }

    @Test func followsEveryStoreReplacementAndEviction() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 100_000)
        for index in 0..<40 {
            // URLs come back with new bytes (the old blob goes), and the limit makes evictions.
            try store(
                cache, "http://h/\(index % 15).png", body(index, size: 2_000 + (index * 7_919) % 30_000),
                at: Date(timeIntervalSince1970: Double(index)))
            #expect(cache.ledgerSize() == cache.measuredSize())
            #expect(cache.measuredSize() <= 100_000)
        }
        // The same bytes under a second URL add nothing.
        let shared = body(99, size: 5_000)
        try store(cache, "http://h/a.png", shared)
        let before = try #require(cache.ledgerSize())
        try store(cache, "http://h/b.png", shared)
        #expect(cache.ledgerSize() == before)
        #expect(before == cache.measuredSize())
        expectConsistent(cache)
    }

    @Test func concurrentWritersKeepTheTotalAndTheLimit() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let limit: Int64 = 400_000
        // One cache object per writer: each has its own open lock file, as a process of its own would.
        let writers = try (0..<6).map { _ in try DiskCache(directory: folder, sizeLimit: limit) }
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: writers.count) { writer in
            for round in 0..<30 {
                let index = writer * 1_000 + round
                do {
                    // Some URLs are shared between writers, so entries are replaced under each other.
                    try store(
                        writers[writer], "http://h/\(index % 3 == 0 ? "shared\(round % 5)" : "own\(index)").png",
                        body(index, size: 3_000 + (index * 7_919) % 40_000))
                    if round % 10 == 0, let entry = writers[writer].entries().first {
                        writers[writer].storeThumbnail(fakePNG(size: 1_500, seed: UInt8(round)), ofBody: entry.sha256, pixels: 64 + writer)
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let cache = writers[0]
        #expect(cache.ledgerSize() == cache.measuredSize())
        #expect(cache.measuredSize() <= limit)
        expectConsistent(cache)
    }

    @Test func aMissingLedgerIsMeasuredAgain() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 1 << 20)
        try store(cache, "http://h/a.png", body(1, size: 10_000))
        try FileManager.default.removeItem(at: ledgerFile(folder))
        #expect(cache.ledgerSize() == nil)
        try store(cache, "http://h/b.png", body(2, size: 20_000))
        #expect(cache.ledgerSize() == 30_000)
    }

    @Test func aLedgerLeftMarkedByAWriterThatDiedIsMeasuredAgain() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 1 << 20)
        try store(cache, "http://h/a.png", body(1, size: 10_000))
        // A writer killed between its change and its record: the mark stays, the figure is old.
        var record = try #require(CacheSizeLedger.record(1))
        record[3] = UInt8(ascii: "?")
        try Data(record).write(to: ledgerFile(folder))
        #expect(cache.ledgerSize() == nil)
        try store(cache, "http://h/b.png", body(2, size: 20_000))
        #expect(cache.ledgerSize() == 30_000)
    }

    @Test func aLedgerFromAnotherBootOrUnreadableIsNotTrusted() throws {
        let bootID = try #require(CacheSizeLedger.bootID)
        let otherBoot = (bootID.first == "0" ? "1" : "0") + bootID.dropFirst()
        let other = Array("v1 = 00000000000000000005 \(otherBoot)\n".utf8)
        #expect(CacheSizeLedger.parse(other) == nil)
        #expect(CacheSizeLedger.parse(try #require(CacheSizeLedger.record(5))) == 5)
        #expect(CacheSizeLedger.parse(Array("v1 = 0000000000000000000x \(bootID)\n".utf8)) == nil)
        #expect(CacheSizeLedger.parse(Array("garbage".utf8)) == nil)

        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 1 << 20)
        try store(cache, "http://h/a.png", body(1, size: 10_000))
        try Data(other).write(to: ledgerFile(folder))
        try store(cache, "http://h/b.png", body(2, size: 20_000))
        #expect(cache.ledgerSize() == 30_000)
        try Data("v1 = 12\n".utf8).write(to: ledgerFile(folder))
        try store(cache, "http://h/c.png", body(3, size: 1_000))
        #expect(cache.ledgerSize() == 31_000)
    }

    /// Twenty digits say up to 2⁶³ − 1 bytes, and a store adds what it wrote to the total: a
    /// ledger (of this boot) saying more than any disk holds is not trusted, and is measured again.
    @Test func aLedgerPastAnyDiskIsNotTrusted() throws {
        #expect(CacheSizeLedger.parse(try #require(CacheSizeLedger.record(Int64.max))) == nil)
        #expect(CacheSizeLedger.parse(try #require(CacheSizeLedger.record(1 << 62))) == 1 << 62)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 1 << 20)
        try store(cache, "http://h/a.png", body(1, size: 10_000))
        try Data(try #require(CacheSizeLedger.record(Int64.max))).write(to: ledgerFile(folder))
        try store(cache, "http://h/b.png", body(2, size: 20_000))
        #expect(cache.ledgerSize() == 30_000)
    }

    @Test func aWrongLedgerIsSetRightByVerifyAndByEviction() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 100_000)
        try store(cache, "http://h/a.png", body(1, size: 10_000), at: Date(timeIntervalSince1970: 1))
        // Something that does not keep the ledger (an older imgview) changed the cache.
        try Data(try #require(CacheSizeLedger.record(3))).write(to: ledgerFile(folder))
        #expect(try cache.verify().problems.isEmpty)
        #expect(cache.ledgerSize() == 10_000)

        // A ledger counting more than there is: over the limit by it, the files are measured and nothing is evicted.
        try Data(try #require(CacheSizeLedger.record(95_000))).write(to: ledgerFile(folder))
        try store(cache, "http://h/b.png", body(2, size: 10_000), at: Date(timeIntervalSince1970: 2))
        #expect(cache.entries().count == 2)
        #expect(cache.ledgerSize() == 20_000)
    }

    @Test func upkeepMeasuresTheLedgerAgain() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 1 << 20)
        try store(cache, "http://h/a.png", body(1, size: 10_000))
        try store(cache, "http://h/b.png", body(2, size: 20_000))
        try cache.remove(URL(string: "http://h/a.png")!)
        #expect(cache.ledgerSize() == 20_000)
        _ = try cache.removeAll()
        #expect(cache.ledgerSize() == 0)
    }

    @Test func thumbnailsCountAndTheLimitHoldsAfterThem() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 30_000)
        let old = try #require(try store(cache, "http://h/old.png", body(1, size: 12_000), at: Date(timeIntervalSince1970: 1)))
        let new = try #require(try store(cache, "http://h/new.png", body(2, size: 12_000), at: Date(timeIntervalSince1970: 2)))
        #expect(cache.storeThumbnail(fakePNG(size: 3_000), ofBody: new.sha256, pixels: 256))
        #expect(cache.ledgerSize() == 27_000)
        // Over the limit with this one: the least recently used entry goes, with its blob.
        #expect(cache.storeThumbnail(fakePNG(size: 4_000, seed: 2), ofBody: new.sha256, pixels: 512))
        #expect(cache.entry(for: old.url) == nil)
        #expect(cache.ledgerSize() == 19_000)
        #expect(cache.ledgerSize() == cache.measuredSize())
        #expect(cache.counters().evictions == 1)
    }

    @Test func missesAreAppendedAndFoldedIntoTheCounters() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 25_000)
        for index in 0..<2 {
            let data = body(index, size: 10_000)
            let file = try cache.makeTemporaryFile()
            try file.write(data)
            try file.finish()
            let date = Date(timeIntervalSince1970: Double(index))
            let entry = CacheEntry(
                url: URL(string: "http://h/\(index).png")!, finalURL: URL(string: "http://h/\(index).png")!, contentType: "image/png",
                format: .png, byteCount: 10_000, sha256: FileDigestForTests.sha256(data), etag: nil, lastModified: nil, fetchedAt: date,
                lastAccessedAt: date, freshUntil: date)
            _ = try cache.store(file, as: entry, countingMiss: true)
        }
        cache.recordMiss()
        // No counters file was rewritten for them: three bytes wait in `misses`.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("v1/counters.json").path))
        #expect(cache.counters() == CacheCounters(misses: 3))
        // An eviction folds them in.
        let data = body(9, size: 10_000)
        let file = try cache.makeTemporaryFile()
        try file.write(data)
        try file.finish()
        let date = Date(timeIntervalSince1970: 9)
        _ = try cache.store(
            file,
            as: CacheEntry(
                url: URL(string: "http://h/9.png")!, finalURL: URL(string: "http://h/9.png")!, contentType: "image/png", format: .png,
                byteCount: 10_000, sha256: FileDigestForTests.sha256(data), etag: nil, lastModified: nil, fetchedAt: date,
                lastAccessedAt: date, freshUntil: date), countingMiss: true)
        #expect(cache.counters() == CacheCounters(misses: 4, evictions: 1))
        let pending = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("v1/misses").path)[.size] as? Int
        #expect(pending == 0)
    }
}
