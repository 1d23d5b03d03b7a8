#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Human-readable byte counts (`1.8 MB`) and their parsing (`200M`).
public enum ByteCount {
    /// Decimal units, as `ls -h --si` and download tools print them.
    public static func format(_ bytes: Int64) -> String {
        let (value, unit) = scaled(bytes, step: 1000, units: ["B", "kB", "MB", "GB", "TB"])
        if unit == "B" { return "\(bytes) B" }
        return String(printf: value < 10 ? "%.1f" : "%.0f", value) + " " + unit
    }

    /// Binary units (`1 GiB`, `1.5 GiB`, `500 MiB`), for sizes users give as `1G`, `500M` (K = 1024):
    /// a limit reads back as it was typed, not as `1.1 GB`.
    public static func formatBinary(_ bytes: Int64) -> String {
        let (value, unit) = scaled(bytes, step: 1024, units: ["B", "KiB", "MiB", "GiB", "TiB"])
        if unit == "B" { return "\(bytes) B" }
        if value == value.rounded() { return String(printf: "%.0f", value) + " " + unit }
        return String(printf: value < 10 ? "%.1f" : "%.0f", value) + " " + unit
    }

    /// `bytes` in the largest of `units` (each `step` times the one before) that keeps it at least 1.
    private static func scaled(_ bytes: Int64, step: Double, units: [String]) -> (value: Double, unit: String) {
        var value = Double(bytes)
        var unit = 0
        while value >= step, unit < units.count - 1 {
            value /= step
            unit += 1
        }
        return (value, units[unit])
    }

    /// `512`, `200k`, `200K`, `64M`, `1.5G` (binary multiples: 1K = 1024) → bytes; nil when malformed.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingSpaces()
        guard let last = trimmed.last else { return nil }
        let multipliers: [Character: Double] = ["k": 1024, "m": 1_048_576, "g": 1_073_741_824, "t": 1_099_511_627_776]
        var number = trimmed
        var multiplier: Double = 1
        if let factor = multipliers[Character(last.lowercased())] {
            multiplier = factor
            number.removeLast()
        } else if last == "B" || last == "b" {
            number.removeLast()
            if let unit = number.last, let factor = multipliers[Character(unit.lowercased())] {
                multiplier = factor
                number.removeLast()
            }
        }
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        // Int64(Double) traps above Int64.max; nobody has 8 EiB of cache or downloads.
        let bytes = value * multiplier
        guard bytes < 0x1p63 else { return nil }
        return Int64(bytes)
    }
}
