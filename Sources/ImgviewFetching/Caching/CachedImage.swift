#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An image's bytes held in the memory cache, with the metadata that came with them.
public struct CachedImage: Sendable {
    public let data: Data
    public let entry: CacheEntry
    public let isOnDisk: Bool

    public init(data: Data, entry: CacheEntry, isOnDisk: Bool) {
        self.data = data
        self.entry = entry
        self.isOnDisk = isOnDisk
    }
}
