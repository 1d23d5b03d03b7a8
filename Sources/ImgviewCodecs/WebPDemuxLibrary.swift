internal import CWebP
import ImgviewImaging
import ImgviewSupport

/// libwebpdemux (which needs libwebp), opened the first time a WebP image is decoded: every
/// decode asks its demuxer first whether the file is animated.
enum WebPDemuxLibrary {
    static let soname = "libwebpdemux.so.2"
    static let package = "libwebpdemux2"

    private static let loaded = load(soname: soname, package: package)

    /// libwebpdemux's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_webp_demux {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_webp_demux, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_webp_demux_load) }
            .mapError { .libraryMissing(.webp, $0) }
    }
}

/// What the header's inline wrappers do, through the table: each passes the ABI version this
/// code was compiled against, which the library checks. Named as the header names them.
// swift-format-ignore: AlwaysUseLowerCamelCase
extension imgview_webp_demux {
    func WebPDemuxPartial(_ data: UnsafePointer<WebPData>, _ state: UnsafeMutablePointer<WebPDemuxState>) -> OpaquePointer? {
        self.WebPDemuxInternal(data, 1, state, WEBP_DEMUX_ABI_VERSION)
    }

    func WebPAnimDecoderOptionsInit(_ options: UnsafeMutablePointer<WebPAnimDecoderOptions>) -> Int32 {
        self.WebPAnimDecoderOptionsInitInternal(options, WEBP_DEMUX_ABI_VERSION)
    }

    func WebPAnimDecoderNew(_ data: UnsafePointer<WebPData>, _ options: UnsafePointer<WebPAnimDecoderOptions>) -> OpaquePointer? {
        self.WebPAnimDecoderNewInternal(data, options, WEBP_DEMUX_ABI_VERSION)
    }
}
