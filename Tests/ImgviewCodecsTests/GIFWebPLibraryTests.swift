import CGIF
import CWebP
import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// giflib, libwebp and libwebpdemux, opened on first use: a missing one is a one-line error
/// naming the Debian package to install (exit 7), and it does not condemn the cached bytes.
@Suite("GIF and WebP libraries opened on demand")
struct GIFWebPLibraryTests {
    static let missing: [(format: ImageFormat, outcome: Result<Void, ImageDecodingError>, package: String)] = [
        (.gif, GIFLibrary.load(soname: "libgif.so.999", package: "libgif999").map { _ in }, "libgif999"),
        (.webp, WebPLibrary.load(soname: "libwebp.so.999", package: "libwebp999").map { _ in }, "libwebp999"),
        (.webp, WebPDemuxLibrary.load(soname: "libwebpdemux.so.999", package: "libwebpdemux999").map { _ in }, "libwebpdemux999"),
    ]

    @Test func aMissingLibraryIsOneLineNamingItsPackage() {
        for (format, outcome, package) in Self.missing {
            guard case .failure(let error) = outcome, case .libraryMissing(format, let library) = error else {
                Issue.record("\(package): a library that is not there was loaded")
                continue
            }
            #expect(library.package == package)
            #expect(error.exitStatus == .badImage && !error.condemnsTheBytes)
            #expect(error.message.hasPrefix("cannot decode \(format.displayName) images: "), "\(error.message)")
            #expect(error.message.contains("install the Debian package \(package)") && !error.message.contains("\n"))
        }
    }

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
