import ImgviewFetching
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a consumer asks the preview pipeline for: the image at `url`, rendered with `options`.
public struct PreviewRequest: Sendable, Hashable {
    public var url: URL
    public var cachePolicy: ImageRequest.CachePolicy
    public var options: RenderOptions

    public init(url: URL, cachePolicy: ImageRequest.CachePolicy = .useCache, options: RenderOptions) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.options = options
    }

    /// The request for the bytes this preview is made from.
    public var imageRequest: ImageRequest {
        ImageRequest(url: url, cachePolicy: cachePolicy)
    }
}
