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
    /// The preview pipeline over the image service these options configure, fetching with `loader`:
    /// what `show`, `info` and the browser ask for previews and facts.
    ///
    /// - Parameter supplied: images whose bytes are in hand already (standard input's), by URL.
    func makePipeline(
        global: GlobalOptions, loader: any DataLoading, maxPixelCount: Int = DecodeRequest.defaultMaxPixelCount,
        supplied: [URL: Data] = [:]
    ) throws -> PreviewPipeline {
        Self.makePipeline(
            service: try makeService(global: global, loader: loader), maxPixelCount: maxPixelCount, offline: global.isOffline,
            supplied: supplied)
    }

    /// The preview pipeline over `service`, decoding with the codecs module.
    static func makePipeline(service: ImageService, maxPixelCount: Int, offline: Bool, supplied: [URL: Data] = [:]) -> PreviewPipeline {
        let loader: any ImageLoading = supplied.isEmpty ? service : SuppliedImageLoader(supplied: supplied, wrapping: service)
        return PreviewPipeline(
            configuration: .init(
                loader: loader, decoder: ImageDecoder(), pngEncoder: PNGEncoder(), maxPixelCount: maxPixelCount, isOffline: offline))
    }
}
