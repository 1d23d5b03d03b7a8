import CJPEG
import CSPNG
import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// libjpeg and libspng, opened on first use: a library without a function imgview calls is
/// refused, and the installed ones load (a missing one: `CodecLibraryTests`).
@Suite("libjpeg and libspng opened on demand")
struct JPEGAndPNGLibraryTests {
    @Test func aLibraryWithoutAFunctionWeCallIsRefusedWhenOpened() throws {
        // libz is installed everywhere and has none of their functions.
        let library = try SharedLibrary.open("libz.so.1", package: "zlib1g").get()
        guard case .failure(let jpeg) = library.functions(imgview_jpeg_load) else {
            Issue.record("libz passed for libjpeg")
            return
        }
        #expect(jpeg.reason == "it has no jpeg_std_error")
        guard case .failure(let spng) = library.functions(imgview_spng_load) else {
            Issue.record("libz passed for libspng")
            return
        }
        #expect(spng.reason == "it has no spng_ctx_new")
    }

    @Test func theInstalledLibrariesWork() throws {
        let spng = try PNGLibrary.functions()
        #expect(spng.spng_strerror(0).map { String(cString: $0) } == "success")
        let jpeg = try JPEGLibrary.functions()
        var manager = jpeg_error_mgr()
        _ = jpeg.jpeg_std_error(&manager)
        #expect(manager.error_exit != nil)
    }
}
