/// Delivers images for a request: the `ImageService` in the app, a loader held by hand in tests.
public protocol ImageLoading: Sendable {
    /// The image for `request`; throws `CancellationError` (or `ImagePipelineError.cancelled`) when
    /// the calling task is cancelled.
    func image(for request: ImageRequest, progress: ImageService.Progress?) async throws -> ImageResponse
}

extension ImageService: ImageLoading {}
