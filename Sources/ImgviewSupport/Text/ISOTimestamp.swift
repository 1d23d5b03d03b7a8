#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// UTC timestamps in ISO 8601 (`2025-11-21T15:14:00Z`): the one form imgview writes and reads,
/// in listings, `info`, the cache's metadata files and their JSON.
///
/// Whole seconds, `Z`, four-digit years of the proleptic Gregorian calendar (`CivilDate`), so the
/// cache's fast reader and `JSONDecoder` (which is given these two functions) cannot disagree,
/// and no formatter is made per date: `cache ls` prints three per entry for ten thousand entries.
public enum ISOTimestamp {
    /// `date`, rounded down to the second; years are clamped to 0000–9999.
    public static func string(from date: Date) -> String {
        text(Int64(date.timeIntervalSince1970.rounded(.down).clamped(to: -1e14...1e14)), zone: true)
    }

    /// The same form in local wall-clock time, without the zone (`2025-11-21T16:14:00`): what the
    /// freedesktop trash's `DeletionDate` is, for trash-cli and GLib to read.
    public static func localString(fromSeconds seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        let offset = localtime_r(&time, &parts) == nil ? 0 : Int64(parts.tm_gmtoff)
        return text(min(max(Int64(seconds), -100_000_000_000_000), 100_000_000_000_000) + offset, zone: false)
    }

    /// A wall-clock date and time that names no zone, in the same form without the zone
    /// (`2019-05-04T12:30:05`), its fields written as they are given, not checked against the
    /// calendar: a photo's EXIF time, which keeps no zone and may say 30 February. Each field is
    /// clamped to what its digits hold.
    public static func wallClockString(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> String {
        let clamped = { (value: Int, most: Int) in Int64(min(max(value, 0), most)) }
        return text(
            CivilDate(year: clamped(year, 9999), month: clamped(month, 99), day: clamped(day, 99)),
            hour: clamped(hour, 99), minute: clamped(minute, 99), second: clamped(second, 99), zone: false)
    }

    /// `seconds` since 1970 on the civil calendar, with `Z` after them or nothing.
    private static func text(_ seconds: Int64, zone: Bool) -> String {
        let (days, dayTime) = seconds.floorDividedBy(86_400)
        var time = dayTime
        var civil = CivilDate(daysSince1970: days)
        if civil.year > 9999 || civil.year < 0 {
            // Years past 9999 would need a fifth digit; no cache entry lives that long.
            civil = civil.year < 0 ? CivilDate(year: 0, month: 1, day: 1) : CivilDate(year: 9999, month: 12, day: 31)
            time = civil.year == 0 ? 0 : 86_399
        }
        return text(civil, hour: time / 3600, minute: time / 60 % 60, second: time % 60, zone: zone)
    }

    /// The date and time, each field in its digits (four for the year, two for the rest), with
    /// `Z` after them or nothing.
    private static func text(_ civil: CivilDate, hour: Int64, minute: Int64, second: Int64, zone: Bool) -> String {
        var text = [UInt8](repeating: 0, count: zone ? 20 : 19)
        func put(_ value: Int64, at offset: Int, width: Int) {
            var rest = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        put(civil.year, at: 0, width: 4)
        put(civil.month, at: 5, width: 2)
        put(civil.day, at: 8, width: 2)
        put(hour, at: 11, width: 2)
        put(minute, at: 14, width: 2)
        put(second, at: 17, width: 2)
        (text[4], text[7], text[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
        (text[13], text[16]) = (UInt8(ascii: ":"), UInt8(ascii: ":"))
        if zone { text[19] = UInt8(ascii: "Z") }
        return String(decoding: text, as: UTF8.self)
    }

    /// The date `text` names in exactly the form `string(from:)` writes; nil for anything else.
    public static func date(from text: some StringProtocol) -> Date? {
        var utf8 = text.utf8.makeIterator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        while let byte = utf8.next() {
            guard bytes.count < 20 else { return nil }
            bytes.append(byte)
        }
        return bytes.withUnsafeBufferPointer { date(fromUTF8: $0) }
    }

    /// As `date(from:)`, over the bytes of the text.
    public static func date(fromUTF8 utf8: UnsafeBufferPointer<UInt8>) -> Date? {
        guard utf8.count == 20, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"), utf8[10] == UInt8(ascii: "T"),
            utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"), utf8[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for position in range {
                let byte = utf8[position]
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19),
            let seconds = CivilDate.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// How `JSONEncoder` writes dates: as `string(from:)` does.
    public static let encodingStrategy = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(string(from: date))
    }

    /// How `JSONDecoder` reads dates: as `date(from:)` does, and nothing else.
    public static let decodingStrategy = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = date(from: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a date in the form 2025-11-21T15:14:00Z")
        }
        return date
    }
}
