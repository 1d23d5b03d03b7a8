#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Durations as users type them (`7d`, `12h`, `1d12h`) and as listings print them (`25m`, `3d`).
public enum DurationText {
    private static let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]

    /// `30s`, `30m`, `12h`, `7d`, `2w`, `1.5d`, or several of them in a row (`1d12h`) → seconds; nil when malformed.
    ///
    /// A bare number is refused: `7` could mean seconds or days, and guessing wrong deletes the wrong things.
    public static func parse(_ text: String) -> TimeInterval? {
        var total: TimeInterval = 0
        var number = ""
        var sawUnit = false
        for character in text.trimmingSpaces().lowercased() {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
            } else if let unit = units[character], let value = Double(number) {
                total += value * unit
                number = ""
                sawUnit = true
            } else {
                return nil
            }
        }
        // Ten thousand years is far past any cache entry; beyond that Date arithmetic stops making sense.
        guard sawUnit, number.isEmpty, total.isFinite, total < 3e11 else { return nil }
        return total
    }

    /// The largest whole unit in `seconds`: `45s`, `25m`, `3h`, `12d`.
    public static func format(_ seconds: TimeInterval) -> String {
        let value = max(0, seconds)
        if value < 60 { return "\(Int(value))s" }
        if value < 3600 { return "\(Int(value / 60))m" }
        if value < 86400 { return "\(Int(value / 3600))h" }
        return "\(Int(value / 86400))d"
    }
}
