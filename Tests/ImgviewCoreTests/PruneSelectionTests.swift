import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching

/// Which entries `cache prune` picks, and what `clear` and `prune` do on disk.
@Suite("Pruning and clearing")
struct PruneSelectionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func entry(_ name: String, bytes: Int64, usedDaysAgo days: Double, sha256: String? = nil) -> CacheEntry {
        let used = now.addingTimeInterval(-days * 86400)
        return CacheEntry(
            url: URL(string: "http://h/\(name)")!, finalURL: URL(string: "http://h/\(name)")!, contentType: nil, format: .png,
            byteCount: bytes, sha256: sha256 ?? name, etag: nil, lastModified: nil, fetchedAt: used, lastAccessedAt: used, freshUntil: used)
    }

    var entries: [CacheEntry] {
        [
            entry("a", bytes: 100, usedDaysAgo: 10), entry("b", bytes: 200, usedDaysAgo: 5), entry("c", bytes: 300, usedDaysAgo: 1),
            entry("d", bytes: 400, usedDaysAgo: 0),
        ].shuffled()
    }

    func names(_ entries: [CacheEntry]) -> [String] { entries.map(\.url.lastPathComponent) }

    @Test func olderThanGoesByLastUse() {
        #expect(names(PruneSelection(olderThan: 7 * 86400).victims(among: entries, now: now)) == ["a"])
        #expect(names(PruneSelection(olderThan: 2 * 86400).victims(among: entries, now: now)) == ["a", "b"])
        #expect(PruneSelection(olderThan: 30 * 86400).victims(among: entries, now: now).isEmpty)
    }

    @Test func maxSizeRemovesLeastRecentlyUsedUntilTheRestFits() {
        #expect(names(PruneSelection(maxSize: 1000).victims(among: entries, now: now)).isEmpty)
        #expect(names(PruneSelection(maxSize: 999).victims(among: entries, now: now)) == ["a"])
        #expect(names(PruneSelection(maxSize: 700).victims(among: entries, now: now)) == ["a", "b"])
        #expect(names(PruneSelection(maxSize: 0).victims(among: entries, now: now)) == ["a", "b", "c", "d"])
    }

    @Test func bothTogether() {
        let selection = PruneSelection(maxSize: 400, olderThan: 7 * 86400)
        #expect(names(selection.victims(among: entries, now: now)) == ["a", "b", "c"])
        #expect(PruneSelection().victims(among: entries, now: now).isEmpty)
    }

    @Test func entriesSharingABlobLeaveTogether() {
        let shared = [
            entry("old", bytes: 500, usedDaysAgo: 3, sha256: "same"), entry("new", bytes: 500, usedDaysAgo: 0, sha256: "same"),
            entry("x", bytes: 100, usedDaysAgo: 1),
        ]
        // 600 bytes on disk; removing "old" alone would free nothing.
        #expect(names(PruneSelection(maxSize: 550).victims(among: shared, now: now)) == ["old", "new"])
        #expect(names(PruneSelection(maxSize: 600).victims(among: shared, now: now)).isEmpty)
    }

    // MARK: On disk

    func store(_ cache: DiskCache, _ name: String, size: Int, seed: UInt8, usedAt date: Date) throws {
        let data = fakePNG(size: size, seed: seed)
        let file = try cache.makeTemporaryFile()
        try file.write(data)
        try file.finish()
        let url = URL(string: "http://h/\(name)")!
        _ = try cache.store(
            file,
            as: CacheEntry(
                url: url, finalURL: url, contentType: nil, format: .png, byteCount: Int64(size), sha256: FileDigestForTests.sha256(data),
                etag: nil, lastModified: nil, fetchedAt: date, lastAccessedAt: date, freshUntil: date))
    }

    @Test func pruneRemovesEntriesBlobsAndLitterAndCountsEvictions() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, now: { [now] in now })
        try store(cache, "a.png", size: 1000, seed: 1, usedAt: now.addingTimeInterval(-10 * 86400))
        try store(cache, "b.png", size: 2000, seed: 2, usedAt: now.addingTimeInterval(-86400))
        let orphan = folder.appendingPathComponent("v1/blobs/ee/ee11")
        try FileManager.default.createDirectory(at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(count: 300).write(to: orphan)
        try Data(count: 50).write(to: folder.appendingPathComponent("v1/tmp/4194305-dead.part"))
        try Data(count: 7).write(to: folder.appendingPathComponent("v1/entries/.x.json.4194305.99.tmp"))

        let report = try cache.prune(PruneSelection(olderThan: 7 * 86400))
        #expect(names(report.entries) == ["a.png"])
        #expect(report.entryCount == 1)
        #expect(report.unreferencedBlobs == 1)
        #expect(report.abandonedFiles == 2)
        #expect(report.freedBytes == 1000 + 300 + 50 + 7)
        #expect(names(cache.entries()) == ["b.png"])
        #expect(cache.totalSize == 2000)
        #expect(cache.counters().evictions == 1)
    }

    @Test func clearRemovesNamedEntriesOrEverything() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, now: { [now] in now })
        try store(cache, "a.png", size: 1000, seed: 1, usedAt: now)
        try store(cache, "b.png", size: 2000, seed: 2, usedAt: now)
        // Same bytes as a.png under another URL: the blob stays while c.png needs it.
        try store(cache, "c.png", size: 1000, seed: 1, usedAt: now)
        try store(cache, "d.png", size: 4000, seed: 4, usedAt: now)

        let (named, notCached) = try cache.remove([URL(string: "http://h/a.png")!, URL(string: "http://h/zzz.png")!])
        #expect(names(named.entries) == ["a.png"])
        #expect(named.freedBytes == 0)
        #expect(notCached == [URL(string: "http://h/zzz.png")!])
        let (second, _) = try cache.remove([URL(string: "http://h/b.png")!, URL(string: "http://h/c.png")!])
        #expect(second.entryCount == 2)
        #expect(second.freedBytes == 3000)
        #expect(names(cache.entries()) == ["d.png"])

        let all = try cache.removeAll()
        #expect(all.entryCount == 1)
        #expect(all.freedBytes == 4000)
        #expect(cache.entries().isEmpty)
        #expect(cache.totalSize == 0)
        #expect(cache.counters().evictions == 0)
    }
}
