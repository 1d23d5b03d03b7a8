#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a consumer asks the pipeline (and its fetcher) for: an image's bytes.
public struct ImageRequest: Sendable, Hashable {
    /// How the caches may be used.
    public enum CachePolicy: Sendable, Hashable {
        /// Memory, then disk if fresh, then revalidate or fetch.
        case useCache
        /// Skip both caches and fetch a new copy (the TUI's `r`); the result still refreshes them.
        case reload
    }

    public var url: URL
    public var cachePolicy: CachePolicy

    public init(url: URL, cachePolicy: CachePolicy = .useCache) {
        self.url = url
        self.cachePolicy = cachePolicy
    }
}
