import CGIF
import CWebP
import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// giflib, libwebp and libwebpdemux, opened on first use: a library without a function imgview
/// calls is refused, and the installed ones load (a missing one: `CodecLibraryTests`).
@Suite("GIF and WebP libraries opened on demand")
struct GIFWebPLibraryTests {
    @Test func aLibraryWithoutAFunctionWeCallIsRefusedWhenOpened() throws {
        // libz is installed everywhere and has none of their functions.
        let library = try SharedLibrary.open("libz.so.1", package: "zlib1g").get()
        guard case .failure(let gif) = library.functions(imgview_gif_load),
            case .failure(let webp) = library.functions(imgview_webp_load),
            case .failure(let demux) = library.functions(imgview_webp_demux_load)
        else {
            Issue.record("libz passed for giflib or libwebp")
            return
        }
        #expect(gif.reason == "it has no DGifOpen")
        #expect(webp.reason == "it has no WebPInitDecoderConfigInternal")
        #expect(demux.reason == "it has no WebPDemuxInternal")
    }

    @Test func theInstalledLibrariesLoadAndAgreeWithTheHeaders() throws {
        let gif = try GIFLibrary.functions()
        #expect(gif.GifErrorString(D_GIF_ERR_READ_FAILED).map { String(cString: $0) } == "Failed to read from given file")
        // The ABI checks the header's wrappers make, through the tables.
        var config = WebPDecoderConfig()
        #expect(try WebPLibrary.functions().WebPInitDecoderConfig(&config) != 0)
        var options = WebPAnimDecoderOptions()
        #expect(try WebPDemuxLibrary.functions().WebPAnimDecoderOptionsInit(&options) != 0)
    }
}
