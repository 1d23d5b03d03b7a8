#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Duration {
    /// The duration in seconds, for arithmetic and display.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole milliseconds (towards zero), counted from its parts, so that any Int
    /// of them read back (a cache entry's) is the same Int, past what a Double holds exactly;
    /// `Int.max` or `Int.min` past what an Int holds.
    public var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (whole, overflow) = Int(seconds).multipliedReportingOverflow(by: 1000)
        let (total, totalOverflow) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        guard !overflow, !totalOverflow else { return seconds < 0 ? .min : .max }
        return total
    }

    /// `30 s`, `1.5 s`.
    package var formattedSeconds: String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(printf: "%.1f s", seconds)
    }
}
