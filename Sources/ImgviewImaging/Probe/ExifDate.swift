import ImgviewSupport

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
        CivilDate(year: Int64(year), month: Int64(month), day: Int64(day)).daysSince1970 * 86_400 + Int64(hour) * 3600
            + Int64(minute) * 60 + Int64(second)
    }

    /// ISO 8601's date and time of a wall clock, without a zone (`2019-05-04T12:30:05`), as
    /// `info --json` writes it: EXIF keeps no zone. The fields are written as the file has them.
    public var isoText: String {
        ISOTimestamp.wallClockString(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    public static func < (lhs: ExifDateTime, rhs: ExifDateTime) -> Bool {
        lhs.wallClockSeconds < rhs.wallClockSeconds
    }
}

/// When a picture was taken, as its EXIF says: what `--sort date` orders by.
public enum ExifDate {
    /// EXIF's DateTimeOriginal, else DateTimeDigitized, else IFD0's DateTime, wherever the
    /// file keeps its EXIF (`ExifBlock`); nil when it has none.
    ///
    /// Only what lies inside `bytes` is read, so a JPEG's, PNG's or TIFF's first 4 KB will do:
    /// the date sits right after the directories, before an embedded thumbnail, even when the
    /// segment goes on past them. HEIF, AVIF, WebP and JPEG XL keep it in an item, chunk or box
    /// that can be anywhere: give them a reader of the whole file (`FileBytes` reads only what is asked).
    public static func taken(in bytes: some ByteReader) -> ExifDateTime? {
        switch ExifBlock.locate(in: bytes) {
        case .inPlace(let range): date(inTIFF: bytes, range: range)
        case .copied(let block): date(inTIFF: ArrayBytes(block), range: 0..<block.count)
        case nil: nil
        }
    }

    /// The date tags of the TIFF structure in `range`: 0x9003 and 0x9004 in the Exif directory
    /// IFD0's 0x8769 points to, then 0x0132 in IFD0. Every offset is checked against the range.
    static func date<Bytes: ByteReader>(inTIFF bytes: Bytes, range: Range<Int>) -> ExifDateTime? {
        guard let layout = TIFFLayout(bytes, in: range) else { return nil }
        /// An ASCII date: 20 bytes, so always stored at an offset.
        func date(_ entry: TIFFLayout<Bytes>.Entry) -> ExifDateTime? {
            guard entry.type == 2, (19...64).contains(entry.count), let offset = layout.number(at: entry.field, size: 4) else { return nil }
            let start = layout.base + offset
            guard start >= layout.base, start + 19 <= range.upperBound else { return nil }
            return ExifDateTime(bytes.bytes(at: start, count: 19))
        }
        let first = layout.entries(atOffset: layout.firstDirectoryOffset, limit: 4096)
        if let pointer = first.first(where: { $0.tag == 0x8769 && ($0.type == 4 || $0.type == 13) }) {
            let exif = layout.entries(atOffset: layout.number(at: pointer.field, size: 4), limit: 4096)
            for tag in [0x9003, 0x9004] {
                if let entry = exif.first(where: { $0.tag == tag }), let found = date(entry) { return found }
            }
        }
        return first.first { $0.tag == 0x0132 }.flatMap(date)
    }
}
