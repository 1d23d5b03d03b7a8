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

/// When a picture was taken, as its EXIF says: what `--sort date` orders by.
public enum ExifDate {
    /// EXIF's DateTimeOriginal, else DateTimeDigitized, else IFD0's DateTime, in the start of a
    /// JPEG (its first APP1 `Exif` segment), PNG (its `eXIf` chunk) or TIFF file; nil when none is.
    ///
    /// Only what lies inside `bytes` is read, so a file's first 4 KB will do: the date sits right
    /// after the directories, before an embedded thumbnail, even when the segment goes on past them.
    public static func taken(in bytes: some ByteReader) -> ExifDateTime? {
        let block: Range<Int>?
        switch ImageFormat.sniff(bytes.bytes(at: 0, count: ImageFormat.sniffLength)) {
        case .jpeg: block = tiffBlockInJPEG(bytes)
        case .png: block = tiffBlockInPNG(bytes)
        case .tiff: block = 0..<bytes.count
        default: block = nil
        }
        return block.flatMap { date(inTIFF: bytes, range: $0) }
    }

    /// The TIFF structure in the first `Exif\0\0` APP1 segment, cut where the bytes end.
    static func tiffBlockInJPEG(_ bytes: some ByteReader) -> Range<Int>? {
        // Not `JPEGMarkers.walk`, which stops at a segment that goes on past the bytes: here that
        // segment is the one wanted.
        var offset = 2
        while let first = bytes.byte(at: offset), first == 0xFF, let marker = bytes.byte(at: offset + 1) {
            if marker == 0xFF {
                offset += 1
                continue
            }
            // Start of scan or end of image: the metadata segments are all before these.
            if marker == 0xDA || marker == 0xD9 { return nil }
            if (0xD0...0xD8).contains(marker) || marker == 0x01 {
                offset += 2
                continue
            }
            guard let length = bytes.bigEndian16(at: offset + 2), length >= 2 else { return nil }
            let body = (offset + 4)..<min(offset + 2 + length, bytes.count)
            if marker == 0xE1, bytes.matches(Array("Exif".utf8) + [0, 0], at: body.lowerBound), body.count > 6 {
                return (body.lowerBound + 6)..<body.upperBound
            }
            offset += 2 + length
        }
        return nil
    }

    /// The data of an `eXIf` chunk before the image data.
    static func tiffBlockInPNG(_ bytes: some ByteReader) -> Range<Int>? {
        var offset = 8
        while let length = bytes.bigEndian32(at: offset), let type = bytes.bigEndian32(at: offset + 4) {
            let data = offset + 8
            switch type {
            case 0x6558_4966: return data..<min(data + length, bytes.count)  // eXIf
            case 0x4944_4154, 0x4945_4E44: return nil  // IDAT, IEND
            default: offset = data + length + 4
            }
        }
        return nil
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
