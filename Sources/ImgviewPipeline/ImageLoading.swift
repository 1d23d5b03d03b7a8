import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Delivers images' bytes for a request: the `ImageService` in the app, a loader held by hand in tests.
public protocol ImageLoading: Sendable {
    /// The image for `request`; throws `CancellationError` (or `ImagePipelineError.cancelled`) when
    /// the calling task is cancelled.
    func image(for request: ImageRequest, progress: ImageService.Progress?) async throws -> ImageResponse

    /// The same, with `body` seeing the bytes as they arrive, where the loader can show them.
    func image(for request: ImageRequest, progress: ImageService.Progress?, body: ImageService.BodyTap?) async throws -> ImageResponse

    /// Forgets what the caches hold for `url`: the bytes turned out not to be an image worth keeping.
    func discardCachedImage(for url: URL) async
}

extension ImageLoading {
    public func image(
        for request: ImageRequest, progress: ImageService.Progress?, body: ImageService.BodyTap?
    ) async throws -> ImageResponse {
        try await image(for: request, progress: progress)
    }
}

extension ImageService: ImageLoading {
    public func discardCachedImage(for url: URL) async {
        configuration.memoryCache.removeValue(for: url)
        try? configuration.diskCache?.remove(url)
    }
}
