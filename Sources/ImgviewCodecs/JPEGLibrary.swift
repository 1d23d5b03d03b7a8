internal import CJPEG
import ImgviewImaging
import ImgviewSupport

/// libjpeg (libjpeg-turbo), opened the first time a JPEG is decoded (`SharedLibrary`), so that
/// the commands that meet no JPEG (`--version`, `info`, a PNG shown) do not load it.
enum JPEGLibrary {
    static let soname = "libjpeg.so.62"
    static let package = "libjpeg62-turbo"

    private static let loaded = load(soname: soname, package: package)

    /// libjpeg's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_jpeg {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_jpeg, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_jpeg_load) }
            .mapError { .libraryMissing(.jpeg, $0) }
    }
}
