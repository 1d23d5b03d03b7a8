#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Gets the bytes of one image for one request, holding nothing between requests: the body of
/// the pipeline's fetch stage, which shares, cancels and remembers fetches around it.
///
/// `ImageFetcher` is the app's (disk cache, then the network, then the store); tests hold
/// requests by hand; `SuppliedImageFetcher` answers for bytes already in hand.
public protocol ImageFetching: Sendable {
    /// The image for `request`; `progress` and `body` see the transfer as it goes (a body from a
    /// cache is not tapped). Throws `ImagePipelineError`, or `CancellationError` when the calling
    /// task is cancelled.
    func fetch(_ request: ImageRequest, progress: @escaping TransferProgress, body: BodyTap?) async throws -> ImageResponse

    /// Forgets what the disk cache holds for `url`: the bytes turned out not to be an image worth keeping.
    func discard(_ url: URL)
}
