internal import CTIFF
import ImgviewImaging
import ImgviewSupport

/// libtiff, opened the first time a TIFF image is decoded (`SharedLibrary`): it and the codecs it
/// links (libjpeg, libwebp, zstd, lzma, jbig, deflate) are a dozen files that no other command should load.
enum TIFFLibrary {
    static let soname = "libtiff.so.6"
    static let package = "libtiff6"

    /// Written once, by whichever thread first asks, and only read after: the table holds the
    /// variadic `TIFFGetField`, which Swift sees as an opaque (so not `Sendable`) pointer.
    nonisolated(unsafe) private static let loaded = load(soname: soname, package: package)

    /// libtiff's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_tiff {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_tiff, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_tiff_load) }
            .mapError { .libraryMissing(.tiff, $0) }
    }
}
