import ImgviewFetching
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ImagePipeline {
    /// Everything the pipeline depends on, so a test swaps one line.
    public struct Configuration: Sendable {
        /// Gets the bytes: the `ImageFetcher` (disk cache, network, store) in the app, a fetcher
        /// held by hand in tests.
        public var fetcher: any ImageFetching
        public var decoder: any ImageDecoding
        /// Writes the PNG that kitty and iTerm2 previews carry (the codecs module's); without
        /// one, kitty previews carry raw pixels and iTerm2 previews cannot be made.
        public var pngEncoder: (any PNGEncoding)?
        /// Where headers, decodes and renders run.
        public var scheduler: any WorkScheduling
        /// Images whose header declares more pixels than this are refused before decoding.
        public var maxPixelCount: Int
        /// Bytes of fetched images kept in memory (only bodies the fetcher delivered in memory);
        /// 0 keeps none, for a command that only copies files.
        public var bytesCostLimit: Int
        /// Bytes of decoded pixels kept for quick returns to an image.
        public var decodedCostLimit: Int
        /// Bytes of rendered previews kept.
        public var previewCostLimit: Int
        /// Bytes one animation's rendered frames may take; later frames are left out, with a warning.
        public var animationCostLimit: Int
        /// Offline, a stale image in memory is as good as any.
        public var isOffline: Bool
        public var now: @Sendable () -> Date
        /// How pictures of unfinished downloads are made for the tasks that ask; nil makes none.
        public var partialPreviews: PartialPreviewPolicy?
        /// Where local files' thumbnails last (the freedesktop.org store); nil makes none.
        public var thumbnails: (any ThumbnailStoring)?
        /// Where fetched bodies' thumbnails last (beside them in the disk cache); nil makes none.
        public var bodyThumbnails: (any BodyThumbnailStoring)?

        public init(
            fetcher: any ImageFetching, decoder: any ImageDecoding, pngEncoder: (any PNGEncoding)? = nil,
            scheduler: any WorkScheduling = WorkerPool(),
            maxPixelCount: Int = DecodeRequest.defaultMaxPixelCount, bytesCostLimit: Int = 256 << 20,
            decodedCostLimit: Int = 256 << 20, previewCostLimit: Int = 128 << 20, animationCostLimit: Int = 48 << 20,
            isOffline: Bool = false, now: @escaping @Sendable () -> Date = Date.init,
            partialPreviews: PartialPreviewPolicy? = PartialPreviewPolicy(), thumbnails: (any ThumbnailStoring)? = nil,
            bodyThumbnails: (any BodyThumbnailStoring)? = nil
        ) {
            self.thumbnails = thumbnails
            self.bodyThumbnails = bodyThumbnails
            self.fetcher = fetcher
            self.decoder = decoder
            self.pngEncoder = pngEncoder
            self.scheduler = scheduler
            self.maxPixelCount = maxPixelCount
            self.bytesCostLimit = bytesCostLimit
            self.decodedCostLimit = decodedCostLimit
            self.previewCostLimit = previewCostLimit
            self.animationCostLimit = animationCostLimit
            self.isOffline = isOffline
            self.now = now
            self.partialPreviews = partialPreviews
        }
    }
}
