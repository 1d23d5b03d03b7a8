import Foundation
import ImgviewCurl
import ImgviewFetching
import ImgviewSupport
import ImgviewURLSession

/// Which HTTP client fetches images and catalogs: libcurl directly (the default), or URLSession.
///
/// URLSession stays available through `IMGVIEW_HTTP=urlsession`, to compare the two and as a
/// fallback should the direct client misbehave somewhere (DECISIONS.md, "One HTTP client").
/// A command makes one loader and hands it to everything that fetches, so catalog pages and
/// images share its connections.
enum HTTPClient: String, CaseIterable {
    case curl
    case urlsession

    struct UnknownClient: UserFacingError {
        let value: String
        var message: String {
            "IMGVIEW_HTTP must be \(HTTPClient.allCases.map(\.rawValue).joined(separator: " or ")), not \(TerminalText.sanitized(value))"
        }
        var exitStatus: ExitStatus { .usage }
    }

    /// The client `IMGVIEW_HTTP` names; curl when it is unset or empty.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HTTPClient {
        guard let value = environment["IMGVIEW_HTTP"], !value.isEmpty else { return .curl }
        guard let client = HTTPClient(rawValue: value.lowercased()) else { throw UnknownClient(value: value) }
        return client
    }

    func makeLoader(idleTimeout: TimeInterval) -> any DataLoading {
        switch self {
        case .curl: CurlDataLoader(idleTimeout: idleTimeout)
        case .urlsession: URLSessionDataLoader(idleTimeout: idleTimeout)
        }
    }

    /// The loader `IMGVIEW_HTTP` names, for commands without network options (the idle timeout is
    /// `--connect-timeout`'s default). Cheap to make: nothing is set up until the first request.
    static func makeLoader(idleTimeout: TimeInterval = ServiceOptions.defaultIdleTimeout) throws -> any DataLoading {
        try fromEnvironment().makeLoader(idleTimeout: idleTimeout)
    }
}
