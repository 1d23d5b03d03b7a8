internal import CAVIF
import ImgviewImaging
import ImgviewSupport

/// libavif, opened the first time an AVIF image is inspected or decoded (`SharedLibrary`): the
/// library and the AV1 codecs it links (dav1d, libgav1, aom, rav1e, SVT-AV1, libyuv, abseil)
/// are about 30 files that no other command should load.
enum AVIFLibrary {
    static let soname = "libavif.so.15"
    static let package = "libavif15"

    private static let loaded = load(soname: soname, package: package)

    /// libavif's functions, or why they cannot be had (exit 7, naming the package to install).
    static func functions() throws(ImageDecodingError) -> imgview_avif {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there.
    static func load(soname: String, package: String) -> Result<imgview_avif, ImageDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_avif_load) }
            .mapError { .libraryMissing(.avif, $0) }
    }
}
