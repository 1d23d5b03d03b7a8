internal import CRSVG
import ImgviewImaging
import ImgviewSupport

/// librsvg, opened the first time an SVG image is read (`SharedLibrary`): with cairo, GLib,
/// Pango, fontconfig and libxml2 it is 47 files that no other command should load.
enum SVGLibrary {
    static let soname = "librsvg-2.so.2"
    static let package = "librsvg2-2"

    private static let loaded = load(soname: soname, package: package)

    /// librsvg's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_rsvg {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_rsvg, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_rsvg_load) }
            .mapError { .libraryMissing(.svg, $0) }
    }
}
