internal import CWebP
import ImgviewImaging
import ImgviewSupport

/// libwebp, opened the first time a WebP image is decoded (`SharedLibrary`): `info` reads a
/// WebP's chunks with the probe, and a command that meets no WebP does not load it.
enum WebPLibrary {
    static let soname = "libwebp.so.7"
    static let package = "libwebp7"

    private static let loaded = load(soname: soname, package: package)

    /// libwebp's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_webp {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_webp, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_webp_load) }
            .mapError { .libraryMissing(.webp, $0) }
    }
}

/// What the header's inline wrappers do, through the table: each passes the ABI version this
/// code was compiled against, which the library checks. Named as the header names them.
// swift-format-ignore: AlwaysUseLowerCamelCase
extension imgview_webp {
    func WebPInitDecoderConfig(_ config: UnsafeMutablePointer<WebPDecoderConfig>) -> Int32 {
        self.WebPInitDecoderConfigInternal(config, WEBP_DECODER_ABI_VERSION)
    }

    func WebPGetFeatures(
        _ data: UnsafePointer<UInt8>?, _ size: Int, _ features: UnsafeMutablePointer<WebPBitstreamFeatures>
    ) -> VP8StatusCode {
        self.WebPGetFeaturesInternal(data, size, features, WEBP_DECODER_ABI_VERSION)
    }
}
