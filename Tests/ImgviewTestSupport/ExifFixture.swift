import Foundation

/// EXIF blocks written by hand, for tests of what imgview reads from them: a date taken in the
/// Exif directory (DateTimeOriginal) or only in IFD0 (DateTime), little- or big-endian.
public enum ExifFixture {
    /// A TIFF structure (what follows `Exif\0\0` in a JPEG's APP1) with `original` as
    /// DateTimeOriginal (in the Exif sub-directory) and `modified` as IFD0's DateTime, each
    /// `YYYY:MM:DD HH:MM:SS`; `padding` zero bytes after it, as an embedded thumbnail would be.
    public static func tiff(original: String?, modified: String? = nil, bigEndian: Bool = false, padding: Int = 0) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        func u32(_ value: Int) -> [UInt8] {
            let bytes = [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return bigEndian ? bytes : bytes.reversed()
        }
        func entry(tag: Int, type: Int, count: Int, value: Int) -> [UInt8] { u16(tag) + u16(type) + u32(count) + u32(value) }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }
        // Header (8), IFD0 at 8: count, entries, next-IFD offset; then the Exif IFD; then the strings.
        let ifd0Entries = (modified == nil ? 0 : 1) + (original == nil ? 0 : 1)
        let ifd0Size = 2 + ifd0Entries * 12 + 4
        let exifOffset = 8 + ifd0Size
        let exifSize = original == nil ? 0 : 2 + 12 + 4
        var dataOffset = exifOffset + exifSize
        var ifd0: [UInt8] = u16(ifd0Entries)
        var exif: [UInt8] = []
        var strings: [UInt8] = []
        if let modified {
            ifd0 += entry(tag: 0x0132, type: 2, count: 20, value: dataOffset)
            strings += ascii(modified)
            dataOffset += 20
        }
        if let original {
            ifd0 += entry(tag: 0x8769, type: 4, count: 1, value: exifOffset)
            exif = u16(1) + entry(tag: 0x9003, type: 2, count: 20, value: dataOffset) + u32(0)
            strings += ascii(original)
        }
        ifd0 += u32(0)
        let header: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        return header + ifd0 + exif + strings + [UInt8](repeating: 0, count: padding)
    }

    /// A TIFF structure with an empty IFD0 and an IFD1 holding `thumbnail` (a JPEG's bytes) as its
    /// JPEGInterchangeFormat, as cameras store their thumbnails.
    public static func tiff(thumbnail: [UInt8], compression: Int = 6, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
        }
        func u32(_ value: Int) -> [UInt8] {
            let bytes = [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return bigEndian ? bytes : bytes.reversed()
        }
        // Header (8); IFD0 at 8: no entries, IFD1 next at 14; IFD1: three entries; the thumbnail at 56.
        let header: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        let ifd0 = u16(0) + u32(14)
        let ifd1 =
            u16(3) + u16(0x0103) + u16(3) + u32(1) + u16(compression) + u16(0) + u16(0x0201) + u16(4) + u32(1) + u32(56)
            + u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count) + u32(0)
        return header + ifd0 + ifd1 + thumbnail
    }

    /// `jpeg` with an APP1 `Exif` segment holding `tiff` inserted after its SOI marker.
    public static func jpeg(_ jpeg: Data, tiff: [UInt8]) -> Data {
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        return Data(jpeg.prefix(2)) + Data(segment) + Data(jpeg.dropFirst(2))
    }
}
