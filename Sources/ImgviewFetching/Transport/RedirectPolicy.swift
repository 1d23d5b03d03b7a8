import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which redirects a loader follows, and what it sends where one leads.
///
/// Both loaders follow redirects themselves (libcurl's own following sends every custom header on
/// to another host, dropping only `Authorization` and `Cookie`), so that what the user gave on the
/// command line reaches only the origin — scheme, host and port — of the request it was given
/// for: the `-H` fields are dropped wherever a redirect leads elsewhere, as they may be a login,
/// a token or a cookie the first server was trusted with. imgview's own fields (the range and
/// validator of a resume, the conditions of a revalidation, `Accept`) follow every redirect, as
/// they describe the body asked for. `--user-agent` names the client, so it follows too, as in
/// curl and browsers; `--referer` follows as a browser's referrer does under its default policy
/// (`strict-origin-when-cross-origin`): whole to its own origin, only its origin to another, and
/// not at all from https to http.
public enum RedirectPolicy {
    /// Redirects followed before giving up (libcurl's and wget's limit is higher; ten is what
    /// browsers' chains stay under).
    public static let maxRedirects = 10

    /// Statuses a loader follows when they carry a Location; the rest are answers.
    public static let redirectStatuses: Set<Int> = [300, 301, 302, 303, 307, 308]

    /// What a loader sends to `target` after the answer to `request` (as first made, with
    /// imgview's own fields only) redirected there, `headers` being the user's.
    public static func request(_ request: HTTPRequest, redirectedTo target: URL, adding headers: RequestHeaders) -> HTTPRequest {
        var next = request
        next.url = target
        if let original = request.url, isSameOrigin(original, target) { return headers.applied(to: next) }
        return headers.applied(to: next, sendingFields: false, referrer: headers.referrer.flatMap { referrer($0, to: target) })
    }

    /// Whether `first` and `second` have one origin: scheme, host and port (the scheme's default
    /// when none is written).
    public static func isSameOrigin(_ first: URL, _ second: URL) -> Bool {
        guard let origin = origin(of: first) else { return false }
        return origin == self.origin(of: second)
    }

    /// The Referer a browser sends to `target` for a page at `referrer`: whole to the page's own
    /// origin, the origin alone (`https://example.org/`) to another, none from https to http or
    /// when `referrer` is not a URL with a host.
    public static func referrer(_ referrer: String, to target: URL) -> String? {
        guard let page = URL(string: referrer), let origin = origin(of: page) else { return nil }
        if origin == self.origin(of: target) { return referrer }
        if page.scheme?.lowercased() == "https" && target.scheme?.lowercased() != "https" { return nil }
        return serializedOrigin(of: page).map { $0 + "/" }
    }

    /// The origin as a browser writes it: no port when it is the scheme's default.
    static func serializedOrigin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port, port != (scheme == "https" ? 443 : 80) else { return "\(scheme)://\(name)" }
        return "\(scheme)://\(name):\(port)"
    }

    /// `scheme://host:port`, lower-cased.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
