internal import CBrotli
import ImgviewSupport

/// libbrotlidec, opened when the first body in brotli arrives (`SharedLibrary`): since libcurl is
/// opened on first use, linking it would add it and libbrotlicommon to every command's start.
enum BrotliLibrary {
    static let soname = "libbrotlidec.so.1"
    static let package = "libbrotli1"

    private static let loaded = load(soname: soname, package: package)

    /// libbrotlidec's functions, or why they cannot be had, naming the package to install.
    static func functions() throws(ContentDecodingError) -> imgview_brotli {
        try loaded.get()
    }

    static func load(soname: String, package: String) -> Result<imgview_brotli, ContentDecodingError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_brotli_load) }
            .mapError { .unavailable($0.summary) }
    }
}
