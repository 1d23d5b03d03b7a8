import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

// Thumbnails of cached bodies, for a grid of URLs: `thumbnails/<ab>/<sha256 of body>-<pixels>.png`,
// named by the body's hash (so a body with new bytes can never show an old thumbnail) and the
// size of the square they fit. They live and die with the blob: `removeBlob` takes them along,
// whatever removes it (`cache rm`, `clear`, `prune`, eviction, an entry stored with new bytes,
// `verify` finding it damaged), and one whose blob is gone is an orphan that upkeep removes.
// Not in `blobs/`, where every file is a body named by its own hash.
extension DiskCache {
    /// The largest thumbnail file read (a 1024 px RGBA PNG compresses well under this).
    static let thumbnailReadLimit = 16 << 20

    /// `<sha256>-<pixels>.png`.
    static func thumbnailName(sha256: String, pixels: Int) -> String {
        "\(sha256)-\(pixels).png"
    }

    /// The body hash and size a thumbnail's file name says; nil for any other name.
    static func parseThumbnailName(_ name: String) -> (sha256: String, pixels: Int)? {
        guard name.hasSuffix(".png"), !name.hasPrefix(".") else { return nil }
        let stem = name.dropLast(4)
        guard let dash = stem.lastIndex(of: "-") else { return nil }
        let hash = stem[..<dash]
        guard hash.count == 64, hash.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
            let pixels = Int(stem[stem.index(after: dash)...]), pixels > 0, pixels <= 4096
        else { return nil }
        return (String(hash), pixels)
    }

    /// The stored thumbnail of the body `sha256` fitted to `pixels`, as the PNG it was stored as;
    /// nil when there is none. Read without a lock (files appear whole, by a rename), and from a
    /// cache opened read only too.
    public func thumbnail(ofBody sha256: String, pixels: Int) -> Data? {
        guard let shard = try? thumbnailsFolder?.subdirectory(Self.shard(of: sha256)),
            let file = try? shard.openFile(Self.thumbnailName(sha256: sha256, pixels: pixels))
        else { return nil }
        defer { try? file.close() }
        guard let status = try? Stat(file), status.size > 0, status.size <= Self.thumbnailReadLimit else { return nil }
        var data = Data(count: Int(status.size))
        let count = data.withUnsafeMutableBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count {
                guard let read = try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...])), read > 0 else { break }
                offset += read
            }
            return offset
        }
        return count == data.count ? data : nil
    }

    /// Keeps `png` as the thumbnail of the body `sha256` fitted to `pixels`, beside its blob;
    /// false when it was not kept (a cache opened read only, a blob no longer there, a write that
    /// failed: a thumbnail is a convenience, made again next time).
    ///
    /// Written whole under a temporary name, then renamed into place under the exclusive lock, and
    /// only while the blob is there: a blob is removed under that lock, and its thumbnails with
    /// it, so none outlives its blob. Its bytes go into the size ledger, and the limit holds after
    /// it as after a store.
    @discardableResult
    public func storeThumbnail(_ png: Data, ofBody sha256: String, pixels: Int) -> Bool {
        let name = Self.thumbnailName(sha256: sha256, pixels: pixels)
        guard !isReadOnly, let folder = thumbnailsFolder, Self.parseThumbnailName(name) != nil,
            let shard = try? folder.makeSubdirectory(Self.shard(of: sha256)),
            let staged = try? AtomicFile.stage(png, as: name, in: shard, sync: false)
        else { return false }
        let kept =
            (try? withSizeLedger { total throws -> Bool in
                guard hasBlob(sha256: sha256) else { return false }
                let before = shard.status(of: name).flatMap { $0.type == .regular ? $0.size : nil } ?? 0
                try staged.commit()
                total += (shard.status(of: name)?.size ?? Int64(png.count)) - before
                try enforceLimitAfterThumbnail(of: sha256, total: &total)
                return true
            }) ?? false
        if !kept { staged.discard() }
        return kept
    }

    /// One thumbnail file as found on disk.
    struct ThumbnailFile {
        var shardName: String
        var name: String
        /// Nil when the name is not a thumbnail's, or it sits in another hash's shard.
        var body: (sha256: String, pixels: Int)?
        var status: Stat
    }

    /// Every file in the thumbnails' shards but temporary ones, with what its name says.
    func thumbnailFiles() -> [ThumbnailFile] {
        guard let folder = thumbnailsFolder else { return [] }
        var files: [ThumbnailFile] = []
        for shardName in folder.names() {
            guard let shard = try? folder.subdirectory(shardName) else { continue }
            for name in shard.names() where !name.hasPrefix(".") {
                guard let status = shard.status(of: name) else { continue }
                let body = Self.parseThumbnailName(name).flatMap { Self.shard(of: $0.sha256) == shardName ? $0 : nil }
                files.append(ThumbnailFile(shardName: shardName, name: name, body: body, status: status))
            }
        }
        return files
    }

    /// The sizes of the thumbnails stored for each body, by its hash, smallest first.
    public func thumbnailSizes() -> [String: [Int]] {
        var sizes: [String: [Int]] = [:]
        for file in thumbnailFiles() where file.status.type == .regular {
            if let body = file.body { sizes[body.sha256, default: []].append(body.pixels) }
        }
        return sizes.mapValues { $0.sorted() }
    }

    /// How many thumbnails there are and their bytes.
    public func thumbnailTotals() -> (count: Int, bytes: Int64) {
        let files = thumbnailFiles().filter { $0.status.type == .regular && $0.body != nil }
        return (files.count, files.reduce(0) { $0 + $1.status.size })
    }

    /// The bytes of each body's thumbnails, by its hash.
    func thumbnailBytesByBody() -> [String: Int64] {
        var bytes: [String: Int64] = [:]
        for file in thumbnailFiles() where file.status.type == .regular {
            if let body = file.body { bytes[body.sha256, default: 0] += file.status.size }
        }
        return bytes
    }

    /// Removes the thumbnails of the body `sha256`; returns their bytes. Under the exclusive lock.
    @discardableResult
    func removeThumbnails(of sha256: String) -> Int64 {
        guard let shard = try? thumbnailsFolder?.subdirectory(Self.shard(of: sha256)) else { return 0 }
        var freed: Int64 = 0
        for name in shard.names() where Self.parseThumbnailName(name)?.sha256 == sha256 {
            let status = shard.status(of: name)
            if shard.removeItem(name), status?.type == .regular { freed += status?.size ?? 0 }
        }
        return freed
    }

    /// Removes every thumbnail whose body's hash is not in `referenced`, and whatever in their
    /// folder is not a thumbnail; returns how many files went and their bytes. Under the exclusive lock.
    func removeThumbnails(notIn referenced: Set<String>) -> (count: Int, bytes: Int64) {
        guard let folder = thumbnailsFolder else { return (0, 0) }
        var removed = (count: 0, bytes: Int64(0))
        for shardName in folder.names() where folder.status(of: shardName)?.type != .directory {
            // Not a folder (a link, a stray file): not the cache's, removed itself.
            if folder.removeItem(shardName) { removed.count += 1 }
        }
        for file in thumbnailFiles() {
            if let body = file.body, file.status.type == .regular, referenced.contains(body.sha256) { continue }
            guard let shard = try? folder.subdirectory(file.shardName), shard.removeItem(file.name) else { continue }
            removed.count += 1
            if file.status.type == .regular { removed.bytes += file.status.size }
        }
        return removed
    }

    /// Temporary files of thumbnail writes whose process is gone, with the folder each is in.
    func abandonedThumbnailWrites() -> [(folder: Directory, name: String)] {
        guard let folder = thumbnailsFolder else { return [] }
        var files: [(folder: Directory, name: String)] = []
        for shardName in folder.names() {
            guard let shard = try? folder.subdirectory(shardName) else { continue }
            files += shard.names().filter(AtomicFile.isAbandoned).map { (folder: shard, name: $0) }
        }
        return files
    }
}
