import Foundation

/// Whether an image is in the disk cache, and fresh: the CACHED column of `list`.
public enum CacheState: String, Sendable {
    case fresh
    case stale
    case notCached = "no"
}

extension DiskCache {
    /// The state of `url`: cached only when both its entry and its blob are there.
    public func state(of url: URL, at now: Date) -> CacheState {
        guard let entry = entry(for: url), hasBlob(entry) else { return .notCached }
        return entry.isFresh(at: now) ? .fresh : .stale
    }
}
