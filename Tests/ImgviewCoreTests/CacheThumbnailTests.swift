import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// Thumbnails of cached bodies (a grid of URLs) beside their blobs: kept only while the blob is
/// there, read from a cache opened read only, removed with the blob whatever removes it, counted,
/// and tidied by `verify` when they are orphans.
@Suite("Disk cache thumbnails")
struct CacheThumbnailTests {
    func entry(_ url: String, _ data: Data, at date: Date = Date()) -> CacheEntry {
        CacheEntry(
            url: URL(string: url)!, finalURL: URL(string: url)!, contentType: "image/png", format: .png, byteCount: Int64(data.count),
            sha256: FileDigestForTests.sha256(data), etag: nil, lastModified: nil, fetchedAt: date, lastAccessedAt: date,
            freshUntil: date.addingTimeInterval(60))
    }

    @discardableResult
    func store(_ cache: DiskCache, _ url: String, _ data: Data, at date: Date = Date()) throws -> CacheEntry {
        let file = try cache.makeTemporaryFile()
        try file.write(data)
        try file.finish()
        return try #require(try cache.store(file, as: entry(url, data, at: date)))
    }

    let png = Data("a thumbnail's bytes".utf8)

    /// The thumbnail files under the cache's folder.
    func thumbnailFiles(_ folder: URL) -> [String] {
        let root = folder.appendingPathComponent("v1/thumbnails")
        let names = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? []
        return names.filter { $0.hasSuffix(".png") }.sorted()
    }

    @Test func aThumbnailIsKeptBesideItsBlobAndReadBack() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder)
        let kept = try store(cache, "http://h/a.png", fakePNG(size: 2000, seed: 1))
        #expect(cache.storeThumbnail(png, ofBody: kept.sha256, pixels: 256))
        #expect(cache.thumbnail(ofBody: kept.sha256, pixels: 256) == png)
        #expect(cache.thumbnail(ofBody: kept.sha256, pixels: 512) == nil)
        #expect(thumbnailFiles(folder) == ["\(kept.sha256.prefix(2))/\(kept.sha256)-256.png"])
        #expect(cache.thumbnailSizes() == [kept.sha256: [256]])
        #expect(cache.thumbnailTotals().count == 1 && cache.thumbnailTotals().bytes == Int64(png.count))
        // Read only: served, never written.
        let readOnly = try DiskCache(directory: folder, readOnly: true)
        #expect(readOnly.thumbnail(ofBody: kept.sha256, pixels: 256) == png)
        #expect(!readOnly.storeThumbnail(png, ofBody: kept.sha256, pixels: 512))
        #expect(thumbnailFiles(folder).count == 1)
    }

    @Test func noThumbnailIsKeptForABodyThatIsNotCached() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder)
        let absent = FileDigestForTests.sha256(Data("never stored".utf8))
        #expect(!cache.storeThumbnail(png, ofBody: absent, pixels: 256))
        #expect(!cache.storeThumbnail(png, ofBody: "not a hash", pixels: 256))
        #expect(thumbnailFiles(folder).isEmpty)
        // Nor a temporary file left behind.
        let shard = folder.appendingPathComponent("v1/thumbnails/\(absent.prefix(2))")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: shard.path)) ?? []).isEmpty)
    }

    @Test func thumbnailsGoWithTheirBlobWhateverRemovesIt() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder)
        func kept(_ url: String, seed: UInt8) throws -> CacheEntry {
            let entry = try store(cache, url, fakePNG(size: 2000, seed: seed))
            #expect(cache.storeThumbnail(png, ofBody: entry.sha256, pixels: 256))
            #expect(cache.storeThumbnail(png + png, ofBody: entry.sha256, pixels: 512))
            return entry
        }
        // `cache clear NAME`.
        let a = try kept("http://h/a.png", seed: 1)
        _ = try cache.remove([a.url])
        #expect(cache.thumbnail(ofBody: a.sha256, pixels: 256) == nil && thumbnailFiles(folder).isEmpty)
        // An entry stored again with new bytes.
        let b = try kept("http://h/b.png", seed: 2)
        try store(cache, "http://h/b.png", fakePNG(size: 2000, seed: 3))
        #expect(cache.thumbnail(ofBody: b.sha256, pixels: 256) == nil && thumbnailFiles(folder).isEmpty)
        // `cache prune`.
        let c = try kept("http://h/c.png", seed: 4)
        let later = try DiskCache(directory: folder, now: { Date().addingTimeInterval(86_400) })
        let pruned = try later.prune(PruneSelection(olderThan: 3600))
        #expect(pruned.entryCount == 2)
        #expect(cache.thumbnail(ofBody: c.sha256, pixels: 256) == nil && thumbnailFiles(folder).isEmpty)
        // `cache clear`, counting their bytes.
        let d = try kept("http://h/d.png", seed: 5)
        let cleared = try cache.removeAll()
        #expect(cleared.freedBytes == Int64(2000 + 3 * png.count))
        #expect(cache.thumbnail(ofBody: d.sha256, pixels: 256) == nil && thumbnailFiles(folder).isEmpty)
    }

    @Test func evictionCountsAndRemovesABodysThumbnails() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder, sizeLimit: 10_000)
        let old = try store(cache, "http://h/old.png", fakePNG(size: 4000, seed: 1), at: Date(timeIntervalSince1970: 1))
        // The blob and its thumbnail are over half the limit together, not alone.
        #expect(cache.storeThumbnail(Data(repeating: 7, count: 3000), ofBody: old.sha256, pixels: 256))
        try store(cache, "http://h/new.png", fakePNG(size: 4000, seed: 2), at: Date(timeIntervalSince1970: 2))
        #expect(cache.entries().map(\.url.lastPathComponent) == ["new.png"])
        #expect(thumbnailFiles(folder).isEmpty)
    }

    @Test func verifyTidiesOrphanedThumbnailsAndCountsTheOthers() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder)
        let kept = try store(cache, "http://h/a.png", fakePNG(size: 2000, seed: 1))
        #expect(cache.storeThumbnail(png, ofBody: kept.sha256, pixels: 256))
        // What a process stopped at the wrong moment, or a hand, could leave.
        let orphan = FileDigestForTests.sha256(Data("gone".utf8))
        let shard = folder.appendingPathComponent("v1/thumbnails/\(orphan.prefix(2))")
        try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
        try png.write(to: shard.appendingPathComponent("\(orphan)-256.png"))
        try png.write(to: shard.appendingPathComponent("stray.txt"))
        let report = try cache.verify()
        #expect(report.problems.isEmpty)
        #expect(report.thumbnails == 1 && report.orphanedThumbnails == 2)
        #expect(thumbnailFiles(folder) == ["\(kept.sha256.prefix(2))/\(kept.sha256)-256.png"])
        // A missing blob takes its entry and its thumbnails.
        try FileManager.default.removeItem(at: cache.blobURL(for: kept))
        let again = try cache.verify()
        #expect(again.problems.map(\.kind) == [.missingBlob])
        #expect(thumbnailFiles(folder).isEmpty)
    }
}
