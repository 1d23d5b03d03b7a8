import Foundation
import ImgviewCore
import ImgviewCurl

/// Which HTTP client fetches images: libcurl directly (the default), or URLSession.
///
/// URLSession stays available through `IMGVIEW_HTTP=urlsession`, to compare the two and as a
/// fallback should the direct client misbehave somewhere (DECISIONS.md, "Downloads: libcurl directly").
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
}
