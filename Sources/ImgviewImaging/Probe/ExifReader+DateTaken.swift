/// A date and time as EXIF records it: local wall-clock time, no zone.
public struct ExifDateTime: Sendable, Equatable, Comparable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    /// Reads `YYYY:MM:DD HH:MM:SS` (dashes are accepted for the colons of the date, as some writers
    /// use them); nil for blanks, zeros (`0000:00:00 00:00:00` means unknown) and anything else.
    public init?(_ text: some Collection<UInt8>) {
        let bytes = Array(text.prefix(19))
        guard bytes.count == 19, bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            [UInt8(ascii: ":"), UInt8(ascii: "-")].contains(bytes[4]), bytes[7] == bytes[4]
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), year > 0, (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    /// Seconds from 1970-01-01 00:00:00 to this date, both read as the same zone's wall clock.
    public var wallClockSeconds: Int64 {
        // Days from the civil date (Howard Hinnant's algorithm): exact for every Gregorian date.
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)
    }

    public static func < (lhs: ExifDateTime, rhs: ExifDateTime) -> Bool {
        lhs.wallClockSeconds < rhs.wallClockSeconds
    }
}

extension ExifReader {
    /// When the picture in `bytes` (the start of a JPEG, PNG or TIFF file) was taken: EXIF's
    /// DateTimeOriginal, else DateTimeDigitized, else IFD0's DateTime; nil when none is there.
    ///
    /// Only what lies inside `bytes` is read; the date usually sits in the first 4 KB, right after
    /// the directories.
    public static func dateTaken(in bytes: [UInt8]) -> ExifDateTime? {
        let block: Range<Int>?
        switch ImageFormat.sniff(bytes) {
        case .jpeg: block = tiffBlockInJPEG(bytes, allowingCut: true)
        case .png: block = tiffBlockInPNG(bytes)
        case .tiff: block = 0..<bytes.count
        default: block = nil
        }
        guard let block else { return nil }
        return dateTaken(inTIFF: bytes, range: block)
    }

    /// The date tags of the TIFF structure in `range`: 0x9003 and 0x9004 in the Exif directory
    /// that IFD0's 0x8769 points to, then 0x0132 in IFD0.
    static func dateTaken(inTIFF bytes: [UInt8], range: Range<Int>) -> ExifDateTime? {
        let base = range.lowerBound
        let end = min(range.upperBound, bytes.count)
        guard end - base >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[base], bytes[base + 1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        guard readUInt16(bytes, base + 2, bigEndian: bigEndian) == 42 else { return nil }

        /// The entries of the directory at `offset` (from the TIFF header) that lie inside the block.
        func entries(at offset: UInt32) -> [(tag: UInt16, type: UInt16, count: UInt32, value: Int)] {
            let start = base + Int(offset)
            guard Int(offset) >= 8, start + 2 <= end else { return [] }
            let count = Int(readUInt16(bytes, start, bigEndian: bigEndian))
            var found: [(UInt16, UInt16, UInt32, Int)] = []
            for index in 0..<count {
                let entry = start + 2 + index * 12
                guard entry + 12 <= end else { break }
                found.append(
                    (
                        readUInt16(bytes, entry, bigEndian: bigEndian), readUInt16(bytes, entry + 2, bigEndian: bigEndian),
                        readUInt32(bytes, entry + 4, bigEndian: bigEndian), entry + 8
                    ))
            }
            return found
        }
        /// An ASCII date value: 20 bytes, so always stored at an offset.
        func date(_ entry: (tag: UInt16, type: UInt16, count: UInt32, value: Int)) -> ExifDateTime? {
            guard entry.type == 2, entry.count >= 19, entry.count <= 64 else { return nil }
            let start = base + Int(readUInt32(bytes, entry.value, bigEndian: bigEndian))
            guard start >= base, start + 19 <= end else { return nil }
            return ExifDateTime(bytes[start..<(start + 19)])
        }

        let first = entries(at: readUInt32(bytes, base + 4, bigEndian: bigEndian))
        if let pointer = first.first(where: { $0.tag == 0x8769 && ($0.type == 4 || $0.type == 13) }) {
            let exif = entries(at: readUInt32(bytes, pointer.value, bigEndian: bigEndian))
            for tag in [UInt16(0x9003), 0x9004] {
                if let entry = exif.first(where: { $0.tag == tag }), let found = date(entry) { return found }
            }
        }
        return first.first(where: { $0.tag == 0x0132 }).flatMap(date)
    }
}
