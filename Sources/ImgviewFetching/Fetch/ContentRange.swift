/// A `Content-Range` field of a single-range response (RFC 9110 §14.4): `bytes 600-999/1000`,
/// `bytes 600-999/*` when the length is unknown, `bytes */1000` in a 416.
package struct ContentRange: Sendable, Equatable {
    /// The first and last byte sent; nil for an unsatisfied range (`*/N`).
    package var first: Int64?
    package var last: Int64?
    /// The whole body's length, when the server said it.
    package var complete: Int64?

    package init(first: Int64?, last: Int64?, complete: Int64?) {
        self.first = first
        self.last = last
        self.complete = complete
    }

    /// The field's value parsed, or nil when it is not one of those forms (another unit, several
    /// ranges, a last byte before the first or past the end).
    package init?(_ text: String) {
        let text = text.trimmingSpaces()
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let rest = text.dropFirst(6).trimmingPrefix(while: { $0 == " " })
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            complete = nil
        } else {
            guard let length = Self.number(parts[1]) else { return nil }
            complete = length
        }
        if parts[0] == "*" {
            guard complete != nil else { return nil }
            first = nil
            last = nil
            return
        }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else {
            return nil
        }
        if let complete, last >= complete { return nil }
        self.first = first
        self.last = last
    }

    /// Digits only (no sign, no spaces), at most 18 of them so that sums cannot overflow.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}
