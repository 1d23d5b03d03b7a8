import ImgviewCodecs
import ImgviewCore

extension ServiceOptions {
    /// The preview pipeline over the image service these options configure, fetching with `loader`:
    /// what `show`, `info` and the browser ask for previews and facts.
    func makePipeline(
        global: GlobalOptions, loader: any DataLoading, maxPixelCount: Int = DecodeRequest.defaultMaxPixelCount
    ) throws -> PreviewPipeline {
        Self.makePipeline(
            service: try makeService(global: global, loader: loader), maxPixelCount: maxPixelCount, offline: global.isOffline)
    }

    /// The preview pipeline over `service`, decoding with the codecs module.
    static func makePipeline(service: ImageService, maxPixelCount: Int, offline: Bool) -> PreviewPipeline {
        PreviewPipeline(
            configuration: .init(
                loader: service, decoder: ImageDecoder(), pngEncoder: PNGEncoder(), maxPixelCount: maxPixelCount, isOffline: offline))
    }
}
