#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A C library opened on first use (`dlopen`), so a command pays for it only when it needs it.
///
/// How heavy codec libraries are reached: libavif with its AV1 codecs now, and every codec added
/// later (DECISIONS.md, "A light binary"). Each is one `C…` module whose module map has no `link`
/// line (the headers give the types) and whose shim fills a struct of function pointers from an
/// open library (`imgview_…_load`); the module that imports it keeps one `static let` of the
/// outcome, so the library is opened once, by whichever thread needs it first.
public final class SharedLibrary: @unchecked Sendable {
    /// Why a library could not be used: it is not installed, or lacks a function we call.
    public struct Unavailable: Error, Equatable, Sendable {
        /// The file asked for, e.g. `libavif.so.15`.
        public let soname: String
        /// The Debian package that installs it, e.g. `libavif15`.
        public let package: String
        /// The loader's own words.
        public let reason: String

        public init(soname: String, package: String, reason: String) {
            self.soname = soname
            self.package = package
            self.reason = reason
        }

        /// "libavif.so.15 is missing (Debian package libavif15: apt install libavif15)".
        public var summary: String {
            "\(soname) cannot be loaded (install the Debian package \(package)): \(TerminalText.sanitized(reason))"
        }
    }

    /// The handle `dlopen` returned; never closed (a process keeps what it loaded).
    public let handle: UnsafeMutableRawPointer
    public let soname: String
    public let package: String

    private init(handle: UnsafeMutableRawPointer, soname: String, package: String) {
        self.handle = handle
        self.soname = soname
        self.package = package
    }

    /// Opens `soname` with every symbol bound now, private to this handle, so a missing function
    /// fails here and not at its first call.
    public static func open(_ soname: String, package: String) -> Result<SharedLibrary, Unavailable> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(Unavailable(soname: soname, package: package, reason: reason))
        }
        return .success(SharedLibrary(handle: handle, soname: soname, package: package))
    }

    /// A shim's table of functions filled from this library: `load` returns the name of the
    /// first function it could not find, or nil when every one was found.
    public func functions<Table>(
        _ load: (UnsafeMutableRawPointer, UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Table
    ) -> Result<Table, Unavailable> {
        var missing: UnsafePointer<CChar>?
        let table = load(handle, &missing)
        if let missing {
            return .failure(Unavailable(soname: soname, package: package, reason: "it has no \(String(cString: missing))"))
        }
        return .success(table)
    }
}
