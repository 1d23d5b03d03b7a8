import ImgviewCurl
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if URLSession
    import ImgviewURLSession
#endif

/// Which HTTP client fetches images and catalogs: libcurl directly (the default), or URLSession.
///
/// URLSession stays available through `IMGVIEW_HTTP=urlsession`, to compare the two and as a
/// fallback should the direct client misbehave somewhere (DECISIONS.md, "One HTTP client"), in a
/// build with the `URLSession` package trait; in one without it (the default on Linux, since
/// FoundationNetworking would load ICU and a second libcurl into every command), asking for it
/// is a usage error that says how to build it in.
/// A command makes one loader and hands it to everything that fetches, so catalog pages and
/// images share its connections.
enum HTTPClient: String, CaseIterable {
    case curl
    case urlsession

    /// Whether this binary was built with the URLSession loader (the `URLSession` package trait).
    static var hasURLSession: Bool {
        #if URLSession
            true
        #else
            false
        #endif
    }

    struct NotBuiltIn: UserFacingError {
        var message: String {
            "IMGVIEW_HTTP=urlsession: this imgview was built without URLSession (build it with `swift build --traits URLSession`); unset IMGVIEW_HTTP to use libcurl"
        }
        var exitStatus: ExitStatus { .usage }
    }

    struct UnknownClient: UserFacingError {
        let value: String
        var message: String {
            "IMGVIEW_HTTP must be \(HTTPClient.allCases.map(\.rawValue).joined(separator: " or ")), not \(TerminalText.sanitized(value))"
        }
        var exitStatus: ExitStatus { .usage }
    }

    /// The client `IMGVIEW_HTTP` names; curl when it is unset or empty.
    static func fromEnvironment(_ environment: [String: String] = Settings.variables(["IMGVIEW_HTTP"])) throws -> HTTPClient {
        guard let value = environment["IMGVIEW_HTTP"], !value.isEmpty else { return .curl }
        guard let client = HTTPClient(rawValue: value.lowercased()) else { throw UnknownClient(value: value) }
        if client == .urlsession, !hasURLSession { throw NotBuiltIn() }
        return client
    }

    func makeLoader(idleTimeout: TimeInterval) -> any DataLoading {
        switch self {
        case .curl: CurlDataLoader(idleTimeout: idleTimeout)
        case .urlsession:
            #if URLSession
                URLSessionDataLoader(idleTimeout: idleTimeout)
            #else
                // fromEnvironment() refuses it first.
                CurlDataLoader(idleTimeout: idleTimeout)
            #endif
        }
    }

    /// The loader `IMGVIEW_HTTP` names, for commands without network options (the idle timeout is
    /// `--connect-timeout`'s default). Cheap to make: nothing is set up until the first request.
    static func makeLoader(idleTimeout: TimeInterval = ServiceOptions.defaultIdleTimeout) throws -> any DataLoading {
        try fromEnvironment().makeLoader(idleTimeout: idleTimeout)
    }
}
