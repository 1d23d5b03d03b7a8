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
    /// Whether the response must name the bytes by their SHA-256. A local file read only to make
    /// a thumbnail need not: what is made of it is known by the file's stamp (device, inode,
    /// size, modification time), as the freedesktop.org store knows a thumbnail by the file's
    /// URI and MTime, and its entry's hash is left empty.
    public var needsDigest: Bool

    public init(url: URL, cachePolicy: CachePolicy = .useCache, needsDigest: Bool = true) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.needsDigest = needsDigest
    }
}
