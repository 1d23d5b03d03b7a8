import ImgviewCodecs
import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ServiceOptions {
    /// The pipeline over the fetcher these options configure, fetching with `loader`: what `show`,
    /// `info` and the browser ask for previews and facts.
    ///
    /// - Parameter supplied: images whose bytes are in hand already (standard input's), by URL.
    func makePipeline(
        global: GlobalOptions, loader: any DataLoading, maxPixelCount: Int = DecodeRequest.defaultMaxPixelCount,
        supplied: [URL: Data] = [:]
    ) throws -> ImagePipeline {
        Self.makePipeline(
            fetcher: try makeFetcher(global: global, loader: loader), maxPixelCount: maxPixelCount, offline: global.isOffline,
            supplied: supplied)
    }

    /// The pipeline over `fetcher`, decoding with the codecs module.
    ///
    /// - Parameter keepsImagesInMemory: false for `get`, which only copies files.
    static func makePipeline(
        fetcher: any ImageFetching, maxPixelCount: Int = DecodeRequest.defaultMaxPixelCount, offline: Bool,
        supplied: [URL: Data] = [:], keepsImagesInMemory: Bool = true
    ) -> ImagePipeline {
        // A grid's thumbnails of URLs are kept beside their bodies in the fetcher's disk cache.
        let cache = (fetcher as? ImageFetcher)?.configuration.diskCache
        let fetcher: any ImageFetching = supplied.isEmpty ? fetcher : SuppliedImageFetcher(supplied: supplied, wrapping: fetcher)
        return ImagePipeline(
            configuration: .init(
                fetcher: fetcher, decoder: ImageDecoder(), pngEncoder: PNGEncoder(), maxPixelCount: maxPixelCount,
                bytesCostLimit: keepsImagesInMemory ? 256 << 20 : 0, isOffline: offline,
                // `get` shows no pictures of a body's start: kept for them, a 100 MB body was held in memory whole.
                partialPreviews: keepsImagesInMemory ? PartialPreviewPolicy() : nil, thumbnails: thumbnailStore(),
                bodyThumbnails: cache.map(CacheThumbnails.init)))
    }

    /// The freedesktop.org thumbnail store the grid and contact sheets share with file managers.
    static func thumbnailStore() -> FreedesktopThumbnails? {
        let environment = Settings.variables(["XDG_CACHE_HOME", "HOME"])
        guard let root = FreedesktopThumbnails.standardRoot(environment: environment) else { return nil }
        return FreedesktopThumbnails(
            root: root, version: Imgview.version, workingDirectory: FileManager.default.currentDirectoryPath)
    }
}
