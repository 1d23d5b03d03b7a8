import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// UTC timestamps in ISO 8601 (`2025-11-21T15:14:00Z`), the form every listing prints for scripts.
///
/// Written by hand because `cache ls` prints three per entry for ten thousand entries, and
/// `ISO8601DateFormatter` costs microseconds apiece on Linux.
public enum ISOTimestamp {
    public static func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return text.count >= count ? text : String(repeating: "0", count: count - text.count) + text
        }
        return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2) + "T"
            + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2) + "Z"
    }
}
