internal import CGIF
import ImgviewImaging
import ImgviewSupport

/// giflib, opened the first time a GIF is decoded (`SharedLibrary`): `info` reads a GIF's frames
/// from the probe, and a command that meets no GIF does not load it.
enum GIFLibrary {
    static let soname = "libgif.so.7"
    static let package = "libgif7"

    private static let loaded = load(soname: soname, package: package)

    /// giflib's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_gif {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_gif, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_gif_load) }
            .mapError { .libraryMissing(.gif, $0) }
    }
}
