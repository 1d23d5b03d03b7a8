import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a transfer failed below HTTP, as a loader saw it: the kinds the pipeline decides on.
///
/// Each loader maps its library's failures (libcurl's `CURLcode`s, `URLError`s) to these cases, so
/// the pipeline's retry rule and its words for the user do not depend on which loader fetched.
/// Texts carried by a case come from libraries and are sanitised when the case is made.
public enum TransportError: Error, Sendable, Equatable {
    /// Nothing listens at the host's port.
    case connectionRefused
    /// The host name does not resolve.
    case hostNotFound(String)
    /// No route to the host, or no network.
    case unreachable
    /// Nothing arrived for `seconds` (connecting, waiting for the answer, or mid-body), after
    /// `received` body bytes.
    case timedOut(seconds: Double, received: Int64)
    /// The connection closed or broke before the response ended, after `received` body bytes.
    case connectionLost(received: Int64)
    /// TLS could not be set up, or the server's certificate is not trusted.
    case tls(String)
    /// More redirects than the loader follows.
    case tooManyRedirects(limit: Int)
    /// A URL whose scheme is not http or https: the one asked for, or a redirect's (file:, ftp:…).
    case unsupportedScheme(String, redirected: Bool)
    /// The answer is not usable HTTP: not a status line, broken headers, a body that does not decode.
    case badResponse(String)
    /// This machine could not make the transfer (out of memory, no sockets, a library failure).
    case local(String)

    /// Whether the same request could succeed if made again in a moment.
    ///
    /// A timeout or a connection lost part way is often the network or a busy server; a host that
    /// does not resolve, a refused connection, TLS that does not match, a redirect loop or a scheme we
    /// do not fetch give the same answer a second later (curl and wget retry none of those by default).
    public var canSucceedOnRetry: Bool {
        switch self {
        case .timedOut, .connectionLost: true
        case .connectionRefused, .hostNotFound, .unreachable, .tls, .tooManyRedirects, .unsupportedScheme, .badResponse, .local: false
        }
    }

    /// Words for the user, without the URL.
    public var reason: String {
        switch self {
        case .connectionRefused: "connection refused"
        case .hostNotFound(let host): host.isEmpty ? "host not found" : "host not found (\(TerminalText.sanitized(host)))"
        case .unreachable: "network unreachable"
        case .timedOut(let seconds, let received):
            received > 0
                ? "timed out (no data for \(Self.seconds(seconds)) after \(received) bytes)"
                : "timed out (no answer within \(Self.seconds(seconds)))"
        case .connectionLost(let received):
            received > 0 ? "connection lost after \(received) bytes" : "connection closed before a response"
        case .tls(let detail): detail.isEmpty ? "TLS failure" : "TLS failure (\(TerminalText.sanitized(detail)))"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .unsupportedScheme(let scheme, let redirected):
            redirected
                ? "redirected to a \(TerminalText.sanitized(scheme)): URL, which imgview does not follow (http and https only)"
                : "unsupported URL scheme \"\(TerminalText.sanitized(scheme))\" (http and https only)"
        case .badResponse(let detail): "bad response from the server (\(TerminalText.sanitized(detail)))"
        case .local(let detail): TerminalText.sanitized(detail)
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && value < 1e9 ? "\(Int(value)) s" : String(printf: "%.1f s", value)
    }
}
