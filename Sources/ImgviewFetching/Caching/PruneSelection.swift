#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which entries `cache prune` removes: those unused for longer than an age, then the least
/// recently used ones until the rest fit a size.
///
/// Age is measured from the last use, not the download: an image viewed every day stays however
/// old it is, as in every LRU cache. Entries sharing a blob (two URLs with the same bytes) leave
/// together, since removing one of them frees nothing.
public struct PruneSelection: Sendable, Equatable {
    /// The most bytes of blobs to keep; nil keeps any amount.
    public var maxSize: Int64?
    /// Entries last used longer ago than this go; nil keeps any age.
    public var olderThan: TimeInterval?

    public init(maxSize: Int64? = nil, olderThan: TimeInterval? = nil) {
        self.maxSize = maxSize
        self.olderThan = olderThan
    }

    /// The entries to remove from `entries` (any order), least recently used first.
    public func victims(among entries: [CacheEntry], now: Date) -> [CacheEntry] {
        var remaining = entries.sorted { $0.lastAccessedAt < $1.lastAccessedAt }
        var victims: [CacheEntry] = []
        if let olderThan {
            let cutoff = now.addingTimeInterval(-olderThan)
            victims = remaining.filter { $0.lastAccessedAt < cutoff }
            remaining.removeAll { $0.lastAccessedAt < cutoff }
        }
        guard let maxSize else { return victims }
        let sizes = remaining.blobSizes
        var total = sizes.values.reduce(0, +)
        var index = 0
        var gone: Set<String> = []
        while total > maxSize, index < remaining.count {
            let oldest = remaining[index]
            index += 1
            guard gone.insert(oldest.sha256).inserted else { continue }
            total -= sizes[oldest.sha256] ?? 0
        }
        victims += remaining.filter { gone.contains($0.sha256) }
        return victims
    }
}
