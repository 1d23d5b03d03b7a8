internal import CHEIF
import ImgviewImaging
import ImgviewSupport

/// libheif, opened the first time a HEIC image is read (`SharedLibrary`): it and the codecs it
/// links (libde265, x265, aom, dav1d) are a dozen files that no other command should load.
enum HEIFLibrary {
    static let soname = "libheif.so.1"
    static let package = "libheif1"

    private static let loaded = load(soname: soname, package: package)

    /// libheif's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_heif {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_heif, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_heif_load) }
            .mapError { .libraryMissing(.heic, $0) }
    }
}
