import CHEIF
import CTIFF
import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// The codec libraries opened on first use: a missing one is a one-line error
/// naming the Debian package to install (exit 7), and it does not condemn the cached bytes.
@Suite("Codec libraries opened on demand")
struct CodecLibraryTests {
    static let missing: [(format: ImageFormat, outcome: Result<Void, ImageDecodingError>, package: String)] = [
        (.tiff, TIFFLibrary.load(soname: "libtiff.so.999", package: "libtiff999").map { _ in }, "libtiff999"),
        (
            .heic,
            HEIFLibrary.load(soname: "libheif.so.999", package: "libheif999", decoderSoname: "libde265.so.0", decoderPackage: "libde265-0")
                .map { _ in }, "libheif999"
        ),
        (
            .heic,
            HEIFLibrary.load(soname: "libheif.so.1", package: "libheif1", decoderSoname: "libde265.so.999", decoderPackage: "libde265-999")
                .map { _ in }, "libde265-999"
        ),
        (.jxl, JXLLibrary.load(soname: "libjxl.so.0.999", package: "libjxl0.999").map { _ in }, "libjxl0.999"),
        (.svg, SVGLibrary.load(soname: "librsvg-2.so.999", package: "librsvg2-999").map { _ in }, "librsvg2-999"),
        (.jpeg, JPEGLibrary.load(soname: "libjpeg.so.999", package: "libjpeg999-turbo").map { _ in }, "libjpeg999-turbo"),
        (.png, PNGLibrary.load(soname: "libspng.so.999", package: "libspng999").map { _ in }, "libspng999"),
        (.gif, GIFLibrary.load(soname: "libgif.so.999", package: "libgif999").map { _ in }, "libgif999"),
        (.webp, WebPLibrary.load(soname: "libwebp.so.999", package: "libwebp999").map { _ in }, "libwebp999"),
        (.webp, WebPDemuxLibrary.load(soname: "libwebpdemux.so.999", package: "libwebpdemux999").map { _ in }, "libwebpdemux999"),
    ]

    @Test func aMissingLibraryIsOneLineNamingItsPackage() {
        for (format, outcome, package) in Self.missing {
            guard case .failure(let error) = outcome, case .libraryMissing(format, let library) = error else {
                Issue.record("\(format): a library that is not there was loaded")
                continue
            }
            #expect(library.package == package)
            #expect(error.exitStatus == .badImage && !error.condemnsTheBytes)
            #expect(error.message.hasPrefix("cannot decode \(format.displayName) images: "), "\(error.message)")
            #expect(error.message.contains("install the Debian package \(package)") && !error.message.contains("\n"))
        }
    }

    @Test func aLibraryWithoutAFunctionWeCallIsRefusedWhenOpened() throws {
        // libz is installed everywhere and has none of libtiff's functions.
        let library = try SharedLibrary.open("libz.so.1", package: "zlib1g").get()
        guard case .failure(let error) = library.functions(imgview_tiff_load) else {
            Issue.record("libz passed for libtiff")
            return
        }
        #expect(error.reason == "it has no TIFFSetErrorHandler")
    }

    /// libheif decodes HEVC with our libde265 plugin, which uses no worker threads, not with its own.
    @Test func libheifDecodesHEVCWithTheDecoderThatStartsNoThreads() throws {
        let heif = try HEIFLibrary.functions()
        var decoders = [OpaquePointer?](repeating: nil, count: 8)
        let count = Int(heif.heif_get_decoder_descriptors(heif_compression_HEVC, &decoders, Int32(decoders.count)))
        let names = decoders.prefix(count).compactMap {
            $0.flatMap { heif.heif_decoder_descriptor_get_id_name($0) }.map { String(cString: $0) }
        }
        #expect(names.first == "imgview-libde265", "\(names)")
        #expect(names.contains("libde265"), "libheif's own is still there, ranked below")
    }

    @Test func theInstalledLibrariesLoad() throws {
        _ = try TIFFLibrary.functions()
        _ = try HEIFLibrary.functions()
        #expect(try JXLLibrary.functions().JxlDecoderVersion() / 1000 == 7, "libjxl 0.7, the ABI the shim was written against")
        _ = try SVGLibrary.functions()
    }
}
