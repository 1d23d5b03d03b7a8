#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PreviewPipeline {
    /// Forgets what is known about `url`'s bytes and drops them from the image service's caches:
    /// the next request fetches again. For a cache entry the user removed.
    public func forget(_ url: URL) async {
        memory.known.removeValue(for: url)
        await configuration.loader.discardCachedImage(for: url)
    }
}
