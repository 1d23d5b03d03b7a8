import CAVIF
import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// Codec libraries opened on first use: a missing one is a one-line error naming the Debian
/// package to install (exit 7), never a binary that cannot start.
@Suite("Libraries loaded on demand")
struct OnDemandLibraryTests {
    @Test func aMissingLibraryIsOneLineNamingItsPackage() throws {
        let outcome = AVIFLibrary.load(soname: "libavif.so.999", package: "libavif999")
        guard case .failure(let error) = outcome else {
            Issue.record("a library that is not there was loaded")
            return
        }
        guard case .libraryMissing(.avif, let library) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(library.soname == "libavif.so.999")
        #expect(library.package == "libavif999")
        #expect(error.exitStatus == .badImage)
        #expect(!error.condemnsTheBytes, "a body is not to blame for a missing library")
        #expect(
            error.message.hasPrefix("cannot decode AVIF images: libavif.so.999 cannot be loaded (install the Debian package libavif999): "))
        #expect(!error.message.contains("\n"))
    }

    @Test func aMissingLibspngIsNamedAsTheWriterOfATerminalsPicture() throws {
        let outcome = PNGLibrary.load(soname: "libspng.so.999", package: "libspng999")
        guard case .failure(let error) = outcome else {
            Issue.record("a library that is not there was loaded")
            return
        }
        let message = GraphicsRenderingError.png(PNGEncoder.startError(error)).message
        #expect(
            message.hasPrefix(
                "could not write the PNG for the terminal: libspng.so.999 cannot be loaded (install the Debian package libspng999): "))
        #expect(!message.contains("decode"))
        #expect(!message.contains("\n"))
    }

    @Test func aLibraryWithoutAFunctionWeCallIsRefusedWhenOpened() throws {
        // libz is installed everywhere and has none of libavif's functions.
        let library = try SharedLibrary.open("libz.so.1", package: "zlib1g").get()
        let outcome = library.functions(imgview_avif_load)
        guard case .failure(let error) = outcome else {
            Issue.record("libz passed for libavif")
            return
        }
        #expect(error.reason == "it has no avifDecoderCreate")
    }

    @Test func theInstalledLibraryDecodes() throws {
        let avif = try AVIFLibrary.functions()
        #expect(avif.avifResultToString(AVIF_RESULT_OK).map { String(cString: $0) } == "OK")
    }
}
