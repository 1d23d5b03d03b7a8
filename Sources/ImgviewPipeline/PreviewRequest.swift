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
    /// Set for a thumbnail (a grid's cell, a contact sheet): the image is decoded to at least
    /// this size, and a local file's lasting thumbnail is used, or made, when there is a store.
    public var thumbnail: ThumbnailSize?
    /// Whether the decoded pixels must also serve the other text mode, for a consumer that can
    /// switch modes (the browser); a preview made once is decoded for its own mode only, which
    /// for ASCII is fewer pixels than blocks need.
    public var modeCanChange: Bool
    /// Whether a local file's bytes are hashed, for a consumer that shows the facts with the
    /// preview (the browser); one that shows only the preview (`show`) keeps what it makes by the
    /// file's stamp, as a thumbnail does.
    public var hashesLocalFile: Bool

    public init(
        url: URL, cachePolicy: ImageRequest.CachePolicy = .useCache, options: RenderOptions, thumbnail: ThumbnailSize? = nil,
        modeCanChange: Bool = true, hashesLocalFile: Bool = true
    ) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.options = options
        self.thumbnail = thumbnail
        self.modeCanChange = modeCanChange
        self.hashesLocalFile = hashesLocalFile
    }

    /// The request for the bytes this preview is made from: a thumbnail of a local file does not
    /// hash them (what is made of it is kept by the file's stamp), nor does a preview that asks not to.
    public var imageRequest: ImageRequest {
        ImageRequest(url: url, cachePolicy: cachePolicy, needsDigest: !url.isFileURL || (thumbnail == nil && hashesLocalFile))
    }
}
