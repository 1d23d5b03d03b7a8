import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Short, user-readable words for the `URLError`s that fetching produces on Linux.
public enum URLErrorText {
    public static func describe(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "host not found"
        case .timedOut: "timed out"
        case .networkConnectionLost: "connection lost"
        case .notConnectedToInternet: "no network"
        case .cancelled: "cancelled"
        case .unsupportedURL: "unsupported URL"
        case .badServerResponse: "bad server response"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            "TLS failure"
        case .httpTooManyRedirects: "too many redirects"
        default: TerminalText.sanitized(error.localizedDescription)
        }
    }
}
