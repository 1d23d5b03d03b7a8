import HTTPTypes
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decides how long a response may be used from the cache without asking the server (SPEC "Freshness").
public struct Freshness: Sendable {
    /// How long a response is fresh when the server says nothing.
    public var defaultLifetime: TimeInterval = 30 * 60

    public init(defaultLifetime: TimeInterval = 30 * 60) {
        self.defaultLifetime = defaultLifetime
    }

    /// What a response's headers allow.
    public enum Verdict: Equatable, Sendable {
        /// Store, fresh until this date (a date in the past means: revalidate every time).
        case store(freshUntil: Date)
        /// `Cache-Control: no-store`, or `Vary: *`: never written to disk.
        case doNotStore
    }

    /// The longest lifetime any header can give: 2³¹ seconds, RFC 9111's cap for delta-seconds.
    public static let maxLifetime: TimeInterval = 2_147_483_648

    /// The verdict for a response received at `now` with header `fields`.
    public func verdict(fields: HTTPFields, now: Date) -> Verdict {
        let directives = Self.directives(fields[.cacheControl] ?? "")
        if directives["no-store"] != nil { return .doNotStore }
        // A response that varies on everything can never be chosen for a later request (RFC 9111 §4.1).
        if fields[values: .vary].contains(where: { $0.split(separator: ",").contains { $0.trimmingSpaces() == "*" } }) {
            return .doNotStore
        }
        if directives["no-cache"] != nil { return .store(freshUntil: now) }
        func fresh(for lifetime: TimeInterval) -> Verdict {
            .store(freshUntil: now.addingTimeInterval(min(max(0, lifetime), Self.maxLifetime)))
        }
        let age = fields[.age].flatMap(Self.deltaSeconds) ?? 0
        if let maxAge = directives["max-age"] {
            // An invalid max-age ("1e9", "-1", "soon") makes the response stale (RFC 9111 §4.2.1).
            guard let seconds = maxAge.flatMap(Self.deltaSeconds) else { return .store(freshUntil: now) }
            return fresh(for: seconds - age)
        }
        if let expiresText = fields[.expires] {
            // An invalid Expires (often "0" or "-1") means already expired (RFC 9111 §5.3).
            guard let expires = HTTPDate.date(from: expiresText) else { return .store(freshUntil: now) }
            let serverNow = fields[.date].flatMap(HTTPDate.date(from:)) ?? now
            return fresh(for: expires.timeIntervalSince(serverNow))
        }
        return fresh(for: defaultLifetime)
    }

    /// The verdict for headers given as names (in any case) and values, as tests write them.
    public func verdict(headers: [String: String], now: Date) -> Verdict {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return verdict(fields: fields, now: now)
    }

    /// A delta-seconds value: digits only, capped at `maxLifetime`; nil for anything else.
    static func deltaSeconds(_ text: String) -> TimeInterval? {
        let digits = text.trimmingSpaces()
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        // Longer than 10 digits is past the cap whatever the digits are.
        guard digits.utf8.count <= 10, let value = TimeInterval(digits) else { return maxLifetime }
        return min(value, maxLifetime)
    }

    /// `max-age=60, no-cache` → ["max-age": "60", "no-cache": nil].
    static func directives(_ value: String) -> [String: String?] {
        var result: [String: String?] = [:]
        for part in value.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard let name = pieces.first?.lowercased(), !name.isEmpty else { continue }
            result[name] = pieces.count > 1 ? pieces[1].trimming { $0 == "\"" } : nil
        }
        return result
    }
}
