import HTTPTypes
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header fields a user gives for every request of a command (`-H 'Name: value'`,
/// `--referer`, `--user-agent`), put on each request as curl puts them: a field replaces
/// imgview's own of the same name (`User-Agent`, `Accept`), `-H 'Name:'` with nothing after the
/// colon removes it, and the rest are added.
///
/// Fields imgview manages itself cannot be given: the range and conditions of resuming and
/// revalidating, the body's coding (it decodes gzip, deflate and br itself) and the message's
/// framing. The `-H` fields go only to the origin (scheme, host, port) of the request they were
/// given for, never on to where a redirect leads elsewhere; `--user-agent` goes everywhere and
/// `--referer` follows a redirect as a browser's referrer does (`RedirectPolicy`).
public struct RequestHeaders: Sendable, Equatable {
    /// The `-H` fields, in the order given.
    public private(set) var fields: HTTPFields = [:]
    /// imgview's own fields left off (`-H 'Accept:'`).
    public private(set) var removed: [HTTPField.Name] = []
    /// `--referer`, if given.
    public private(set) var referrer: String?
    /// `--user-agent`, if given.
    public private(set) var userAgent: String?

    /// Fields only imgview sets, with what it sets them for.
    package static let managed: [HTTPField.Name: String] = [
        .range: "resuming", .ifRange: "resuming", .ifNoneMatch: "revalidating", .ifModifiedSince: "revalidating",
        .acceptEncoding: "decoding bodies", HTTPField.Name("Host")!: "the URL", .contentLength: "the request",
        .transferEncoding: "the request",
        .connection: "the connection",
    ]

    public init() {}

    /// Whether nothing was given.
    public var isEmpty: Bool { fields.isEmpty && removed.isEmpty && referrer == nil && userAgent == nil }

    /// Adds one `-H` argument, `Name: value`; `Name:` alone removes imgview's own field.
    public mutating func add(_ line: String) throws(RequestHeaderError) {
        guard let colon = line.firstIndex(of: ":") else { throw .noColon(line) }
        let nameText = line[..<colon].trimmingSpaces()
        let value = line[line.index(after: colon)...].trimmingSpaces()
        guard !nameText.isEmpty, let name = HTTPField.Name(nameText) else { throw .badName(String(nameText)) }
        if let purpose = Self.managed[name] { throw .managed(name.rawName, purpose) }
        if value.isEmpty {
            fields[name] = nil
            removed.append(name)
            return
        }
        try Self.check(value, option: "-H \(nameText)")
        if removed.contains(name) { removed.removeAll { $0 == name } }
        // Repeated, a field is sent repeated (as curl sends two -H of one name), but one given here replaces imgview's own.
        fields.append(HTTPField(name: name, value: value))
    }

    /// `--referer URL`: sent with every request; where a redirect leads to another origin, what
    /// a browser would send there (`RedirectPolicy.referrer(_:to:)`).
    public mutating func setReferrer(_ url: String) throws(RequestHeaderError) {
        let url = url.trimmingSpaces()
        try Self.check(url, option: "--referer")
        referrer = url
    }

    /// `--user-agent TEXT`: instead of `imgview/<version>`, on every request.
    public mutating func setUserAgent(_ text: String) throws(RequestHeaderError) {
        let text = text.trimmingSpaces()
        try Self.check(text, option: "--user-agent")
        userAgent = text
    }

    /// These headers with `other`'s added: its fields after these, its Referer and User-Agent in
    /// place of these.
    public func adding(_ other: RequestHeaders) -> RequestHeaders {
        var sum = self
        sum.fields.append(contentsOf: other.fields)
        for name in other.removed where !sum.removed.contains(name) { sum.removed.append(name) }
        sum.referrer = other.referrer ?? referrer
        sum.userAgent = other.userAgent ?? userAgent
        return sum
    }

    /// HTTPField would quietly replace a line break with a space: a value is one line, as typed.
    private static func check(_ value: String, option: String) throws(RequestHeaderError) {
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
            throw .controlCharacter(option)
        }
    }

    /// `request` as sent to its own URL: these fields in place of imgview's own of the same names.
    public func applied(to request: HTTPRequest) -> HTTPRequest {
        applied(to: request, sendingFields: true, referrer: referrer)
    }

    /// `request` with the `-H` fields only when `sendingFields`, `referrer` as the Referer (nil:
    /// none of the user's), and the `--user-agent`.
    func applied(to request: HTTPRequest, sendingFields: Bool, referrer: String?) -> HTTPRequest {
        guard !isEmpty else { return request }
        var request = request
        if let userAgent { request.headerFields[.userAgent] = userAgent }
        if let referrer { request.headerFields[.referer] = referrer }
        guard sendingFields else { return request }
        for name in removed { request.headerFields[name] = nil }
        var replaced: Set<HTTPField.Name> = []
        for field in fields where !replaced.contains(field.name) {
            replaced.insert(field.name)
            request.headerFields[field.name] = nil
        }
        request.headerFields.append(contentsOf: fields)
        return request
    }
}

/// Why a header given on the command line was refused.
public enum RequestHeaderError: UserFacingError, Equatable {
    case noColon(String)
    case badName(String)
    case managed(String, String)
    case controlCharacter(String)

    public var message: String {
        switch self {
        case .noColon(let line): "-H \"\(TerminalText.sanitized(line))\": a header is 'Name: value'"
        case .badName(let name): "-H: \"\(TerminalText.sanitized(name))\" is not a header name"
        case .managed(let name, let purpose): "-H \(name): imgview sets this header itself (\(purpose))"
        case .controlCharacter(let option): "\(TerminalText.sanitized(option)): a header value is one line without control characters"
        }
    }

    public var exitStatus: ExitStatus { .usage }
}
