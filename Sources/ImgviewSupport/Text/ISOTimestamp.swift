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
        let interval = date.timeIntervalSince1970.rounded(.down)
        // time_t(_:) traps outside its range; such a date can only come from a damaged file.
        guard abs(interval) < 1e14 else { return "0000-00-00T00:00:00Z" }
        var seconds = time_t(interval)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        var text = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int32, at offset: Int, width: Int) {
            var rest = Int(value)
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        // Years past 9999 would need a fifth digit; no cache entry lives that long.
        put(min(9999, max(0, parts.tm_year + 1900)), at: 0, width: 4)
        put(parts.tm_mon + 1, at: 5, width: 2)
        put(parts.tm_mday, at: 8, width: 2)
        put(parts.tm_hour, at: 11, width: 2)
        put(parts.tm_min, at: 14, width: 2)
        put(parts.tm_sec, at: 17, width: 2)
        (text[4], text[7], text[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
        (text[13], text[16], text[19]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }
}
