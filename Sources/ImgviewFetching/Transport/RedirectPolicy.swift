import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which of a request's header fields follow it through a redirect.
///
/// As curl (7.58 on; libcurl does this for the libcurl loader): credentials go only to the origin
/// the request was first sent to — same scheme, host and port — never to another host or port a
/// redirect names, where they would hand a user's login to whoever the first server points at.
/// Every other field follows (a Referer, a User-Agent, an API key header, as curl sends them).
public enum RedirectPolicy {
    /// The fields that carry credentials.
    public static let credentialFields: [HTTPField.Name] = [.authorization, .cookie]

    /// Whether credentials sent to `original` may be sent to `target`.
    public static func keepsCredentials(from original: URL, to target: URL) -> Bool {
        origin(of: original) == origin(of: target)
    }

    /// Scheme, lower-cased host and port (the scheme's default when none is written).
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
