internal import CLCMS
import ImgviewImaging
import ImgviewSupport

/// Little CMS, opened the first time an image declares a colour space that is not sRGB
/// (`SharedLibrary`), so the many files that declare none, or sRGB, never load it.
enum ColorLibrary {
    static let soname = "liblcms2.so.2"
    static let package = "liblcms2-2"

    private static let loaded = load(soname: soname, package: package)

    /// lcms's functions, or why they cannot be had.
    static func functions() -> Result<imgview_lcms, SharedLibrary.Unavailable> {
        loaded
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_lcms, SharedLibrary.Unavailable> {
        SharedLibrary.open(soname, package: package).flatMap { $0.functions(imgview_lcms_load) }
    }
}

extension imgview_lcms: @retroactive @unchecked Sendable {}
