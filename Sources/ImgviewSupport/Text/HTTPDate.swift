#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads and writes the date format of HTTP headers (RFC 9110 §5.6.7: IMF-fixdate, and the two
/// obsolete forms a recipient must still accept).
///
/// By hand, on the civil calendar `ISOTimestamp` uses: the formats are fixed English tokens,
/// which Foundation reached through ICU's `DateFormatter` (DECISIONS.md, "A light binary").
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let longWeekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func string(from date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down).clamped(to: -1e14...1e14))
        let (days, time) = seconds.floorDividedBy(86_400)
        let civil = CivilDate(daysSince1970: days)
        let weekday = weekdays[Int(days.floorDividedBy(7).remainder)]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(civil.year)
        return
            "\(weekday), \(two(civil.day)) \(months[Int(civil.month) - 1]) \(String(repeating: "0", count: max(0, 4 - year.count)) + year) "
            + "\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// The date in a header value, or nil when it is in none of the three forms.
    public static func date(from text: String) -> Date? {
        let trimmed = text.trimmingSpaces()
        // HTTP dates are short printable ASCII.
        guard trimmed.utf8.count <= 64, trimmed.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        let tokens = trimmed.split(whereSeparator: { " ,-:".contains($0) }).map(String.init)
        let parts: (day: String, month: String, year: String, clock: ArraySlice<String>)
        if tokens.count == 8, weekdays.contains(tokens[0]), tokens[3].count == 4, isGMT(tokens[7]) {
            parts = (tokens[1], tokens[2], tokens[3], tokens[4..<7])  // Sun, 06 Nov 1994 08:49:37 GMT
        } else if tokens.count == 8, longWeekdays.contains(tokens[0]), tokens[3].count == 2, isGMT(tokens[7]) {
            parts = (tokens[1], tokens[2], tokens[3], tokens[4..<7])  // Sunday, 06-Nov-94 08:49:37 GMT
        } else if tokens.count == 7, weekdays.contains(tokens[0]), tokens[6].count == 4 {
            parts = (tokens[2], tokens[1], tokens[6], tokens[3..<6])  // Sun Nov  6 08:49:37 1994
        } else {
            return nil
        }
        guard let month = months.firstIndex(of: parts.month), (1...2).contains(parts.day.count),
            let day = Int64(parts.day), let written = Int64(parts.year),
            let hour = Int64(parts.clock[parts.clock.startIndex]), let minute = Int64(parts.clock[parts.clock.startIndex + 1]),
            let second = Int64(parts.clock[parts.clock.startIndex + 2]), parts.clock.allSatisfy({ $0.count == 2 })
        else { return nil }
        var year = written
        if parts.year.count == 2 {
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            let thisYear = CivilDate(daysSince1970: Int64(Date().timeIntervalSince1970 / 86_400)).year
            year = 2000 + written
            if year > thisYear + 50 { year -= 100 }
        }
        guard let seconds = CivilDate.seconds(year: year, month: Int64(month + 1), day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func isGMT(_ zone: String) -> Bool {
        zone == "GMT" || zone == "UTC"
    }
}
