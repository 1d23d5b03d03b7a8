import CJPEG
import CSPNG
import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// libjpeg and libspng, opened on first use: a missing one is a one-line error naming the Debian
/// package to install (exit 7), and it does not condemn the cached bytes.
@Suite("libjpeg and libspng opened on demand")
struct JPEGAndPNGLibraryTests {
    @Test func aMissingLibraryIsOneLineNamingItsPackage() {
        let missing: [(format: ImageFormat, outcome: Result<Void, ImageDecodingError>, package: String)] = [
            (.jpeg, JPEGLibrary.load(soname: "libjpeg.so.999", package: "libjpeg999-turbo").map { _ in }, "libjpeg999-turbo"),
            (.png, PNGLibrary.load(soname: "libspng.so.999", package: "libspng999").map { _ in }, "libspng999"),
        ]
        for (format, outcome, package) in missing {
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
