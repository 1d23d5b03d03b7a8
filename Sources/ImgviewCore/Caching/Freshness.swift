import Foundation

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
        /// `Cache-Control: no-store`: never written to disk.
        case doNotStore
    }

    /// The verdict for a response received at `now` with `headers` (names in any case).
    public func verdict(headers: [String: String], now: Date) -> Verdict {
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let directives = Self.directives(lowered["cache-control"] ?? "")
        if directives["no-store"] != nil { return .doNotStore }
        if directives["no-cache"] != nil { return .store(freshUntil: now) }
        let age = lowered["age"].flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        if let maxAge = directives["max-age"].flatMap({ $0.flatMap(TimeInterval.init) }) {
            return .store(freshUntil: now.addingTimeInterval(max(0, maxAge - max(0, age))))
        }
        if let expiresText = lowered["expires"] {
            // An invalid Expires (often "0" or "-1") means already expired (RFC 9111 §5.3).
            guard let expires = HTTPDate.date(from: expiresText) else { return .store(freshUntil: now) }
            let serverNow = lowered["date"].flatMap(HTTPDate.date(from:)) ?? now
            return .store(freshUntil: now.addingTimeInterval(expires.timeIntervalSince(serverNow)))
        }
        return .store(freshUntil: now.addingTimeInterval(defaultLifetime))
    }

    /// `max-age=60, no-cache` → ["max-age": "60", "no-cache": nil].
    static func directives(_ value: String) -> [String: String?] {
        var result: [String: String?] = [:]
        for part in value.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = pieces.first?.lowercased(), !name.isEmpty else { continue }
            result[name] = pieces.count > 1 ? pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
        }
        return result
    }
}
