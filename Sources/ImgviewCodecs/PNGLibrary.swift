internal import CSPNG
import ImgviewImaging
import ImgviewSupport

/// libspng, opened the first time a PNG is decoded or written (a picture for a pixel protocol, a
/// thumbnail) through `SharedLibrary`, so that `--version` and `info` do not load it.
enum PNGLibrary {
    static let soname = "libspng.so.0"
    static let package = "libspng0"

    private static let loaded = load(soname: soname, package: package)

    /// libspng's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_spng {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_spng, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_spng_load) }
            .mapError { .libraryMissing(.png, $0) }
    }
}
