import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A partial download in the cache's `tmp/` as the cache commands show it: whose bytes, how many
/// of how many, and since when.
public struct PartialSummary: Sendable, Equatable {
    public var url: URL
    /// Bytes kept so far.
    public var received: Int64
    /// The whole body's length, when the server said it.
    public var total: Int64?
    public var etag: String?
    public var lastModified: String?
    public var startedAt: Date
    /// When bytes last arrived.
    public var updatedAt: Date

    /// How much of the body is kept, 0 to 100 (99 until it is all there); nil without a total.
    public var percent: Int? {
        guard let total, total > 0 else { return nil }
        let share = Int(received * 100 / total)
        return received < total ? min(share, 99) : 100
    }
}

extension DiskCache {
    /// The partial downloads in `tmp/`, most recently written first: those with both their bytes
    /// and their metadata (a half without the other is `prune`'s to remove, not a download).
    public func partials() -> [PartialSummary] {
        let reader = SmallFileReader(folder: temporaryFolder)
        var found: [PartialSummary] = []
        for name in temporaryFolder.names() where PartialDownload.isPartial(name) && name.hasSuffix(".json") {
            let bytesName = String(name.dropLast(5))
            guard let status = temporaryFolder.status(of: bytesName), status.type == .regular,
                let validators = reader.read(
                    name, { bytes, _ in try? Self.decoder.decode(PartialDownload.Validators.self, from: Data(buffer: bytes)) }),
                let url = URL(string: validators.url)
            else { continue }
            found.append(
                PartialSummary(
                    url: url, received: Int64(status.size), total: validators.total, etag: validators.etag,
                    lastModified: validators.lastModified, startedAt: validators.startedAt,
                    updatedAt: Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))))
        }
        return found.sorted { $0.updatedAt > $1.updatedAt }
    }
}
