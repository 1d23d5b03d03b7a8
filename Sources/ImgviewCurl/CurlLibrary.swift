internal import CCurl
import ImgviewFetching
import ImgviewSupport

/// libcurl, opened when a command makes its first transfer (`SharedLibrary`): libcurl and the
/// thirty libraries it links (OpenSSL, GnuTLS, Kerberos, LDAP, SSH, nghttp2…) are most of what a
/// command that never touches the network used to load at start-up.
enum CurlLibrary {
    static let soname = "libcurl.so.4"
    static let package = "libcurl4"

    nonisolated(unsafe) private static let loaded = load(soname: soname, package: package)

    /// libcurl's functions, or a transport error naming the package to install.
    static func functions() throws(TransportError) -> UnsafePointer<imgview_curl> {
        try loaded.get()
    }

    /// Opens `soname`; the tests point it at a library that is not there. The table lives as long
    /// as the process, so the wrappers in the shim can be handed a pointer to it.
    static func load(soname: String, package: String) -> Result<UnsafePointer<imgview_curl>, TransportError> {
        SharedLibrary.open(soname, package: package)
            .flatMap { $0.functions(imgview_curl_load) }
            .map { table in
                let stored = UnsafeMutablePointer<imgview_curl>.allocate(capacity: 1)
                stored.initialize(to: table)
                return UnsafePointer(stored)
            }
            .mapError { .local($0.summary) }
    }
}

/// libcurl's functions, for code that runs only after `CurlLibrary.functions()` succeeded (the
/// driver checks it before it makes the first handle).
var libcurl: UnsafePointer<imgview_curl> {
    // swift-format-ignore: NeverUseForceTry
    try! CurlLibrary.functions()
}
