internal import CJXL
import ImgviewImaging
import ImgviewSupport

/// libjxl, opened the first time a JPEG XL image is read (`SharedLibrary`): it, Brotli, Highway
/// and lcms are nine files that no other command should load.
enum JXLLibrary {
    static let soname = "libjxl.so.0.7"
    static let package = "libjxl0.7"

    private static let loaded = load(soname: soname, package: package)

    /// libjxl's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_jxl {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_jxl, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_jxl_load) }
            .mapError { .libraryMissing(.jxl, $0) }
    }
}
