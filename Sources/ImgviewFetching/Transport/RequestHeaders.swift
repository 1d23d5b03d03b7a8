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
/// framing. Credentials (`Authorization`, `Cookie`) go only to the origin a request was sent to,
/// not where it is redirected (`RedirectPolicy`).
public struct RequestHeaders: Sendable, Equatable {
    /// Fields set on every request, in the order given.
    public private(set) var fields: HTTPFields = [:]
    /// imgview's own fields left off (`-H 'Accept:'`).
    public private(set) var removed: [HTTPField.Name] = []

    /// Fields only imgview sets, with what it sets them for.
    package static let managed: [HTTPField.Name: String] = [
        .range: "resuming", .ifRange: "resuming", .ifNoneMatch: "revalidating", .ifModifiedSince: "revalidating",
        .acceptEncoding: "decoding bodies", HTTPField.Name("Host")!: "the URL", .contentLength: "the request",
        .transferEncoding: "the request",
        .connection: "the connection",
    ]

    public init() {}

    /// Whether nothing was given.
    public var isEmpty: Bool { fields.isEmpty && removed.isEmpty }

    /// The `Referer` given, if any.
    public var referrer: String? { fields[.referer] }

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
        try set(name, to: value, option: "-H \(nameText)")
    }

    /// `--referer URL`: sent with every request, redirects included (as curl does).
    public mutating func setReferrer(_ url: String) throws(RequestHeaderError) {
        try set(.referer, to: url.trimmingSpaces(), option: "--referer")
    }

    /// `--user-agent TEXT`: instead of `imgview/<version>`.
    public mutating func setUserAgent(_ text: String) throws(RequestHeaderError) {
        try set(.userAgent, to: text.trimmingSpaces(), option: "--user-agent")
    }

    private mutating func set(_ name: HTTPField.Name, to value: String, option: String) throws(RequestHeaderError) {
        // HTTPField would quietly replace a line break with a space: a value is one line, as typed.
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
            throw .controlCharacter(option)
        }
        if removed.contains(name) { removed.removeAll { $0 == name } }
        // Repeated, a field is sent repeated (as curl sends two -H of one name), but one given here replaces imgview's own.
        fields.append(HTTPField(name: name, value: value))
    }

    /// `request` with these fields in place of imgview's own of the same names.
    public func applied(to request: HTTPRequest) -> HTTPRequest {
        guard !isEmpty else { return request }
        var request = request
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
