import Foundation

/// Reads and writes the date format of HTTP headers (RFC 9110 IMF-fixdate, and the two obsolete forms).
public enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",  // IMF-fixdate
        "EEEE, dd-MMM-yy HH:mm:ss zzz",  // RFC 850
        "EEE MMM d HH:mm:ss yyyy",  // asctime
    ]

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }

    /// `date` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func string(from date: Date) -> String {
        formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'").string(from: date)
    }

    /// The date in a header value, or nil when it is in none of the three forms.
    public static func date(from text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // HTTP dates are short printable ASCII. Foundation's DateFormatter stops the process on
        // some other text ("Incorrect range CFRange", found by the fuzzer in an Expires header),
        // so nothing else reaches it.
        guard trimmed.utf8.count <= 64, trimmed.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        for format in formats {
            if let date = formatter(format).date(from: trimmed) { return date }
        }
        return nil
    }
}
