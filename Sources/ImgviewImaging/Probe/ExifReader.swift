import Foundation

/// Finds the EXIF Orientation tag in a JPEG's APP1 segment, a PNG's eXIf chunk or a TIFF's first directory.
///
/// Written by hand rather than with a library: only one tag is needed, and every offset
/// in EXIF comes from the file, so each read is bounds-checked and a malformed block
/// means "upright", never a crash.
public enum ExifReader {
    /// The orientation recorded in the first bytes of `data` (a JPEG, PNG or TIFF file), `.up` when there is none.
    ///
    /// Only the first `ImageDimensions.prefixLength` bytes are read: the metadata segments come
    /// before the image data, and an APP1 segment is at most 64 KiB.
    public static func orientation(in data: Data) -> ImageOrientation {
        orientation(in: [UInt8](data.prefix(ImageDimensions.prefixLength)))
    }

    /// The orientation recorded in `bytes` (a whole JPEG, PNG or TIFF file, or its start), `.up` when there is none.
    public static func orientation(in bytes: [UInt8]) -> ImageOrientation {
        switch ImageFormat.sniff(bytes) {
        case .jpeg: tiffBlockInJPEG(bytes).flatMap { orientation(inTIFF: bytes, range: $0) } ?? .up
        case .png: tiffBlockInPNG(bytes).flatMap { orientation(inTIFF: bytes, range: $0) } ?? .up
        // A TIFF file is the structure itself (when its first directory lies within `bytes`).
        case .tiff: orientation(inTIFF: bytes, range: 0..<bytes.count) ?? .up
        default: .up
        }
    }

    /// The byte range of the TIFF structure inside the first `Exif\0\0` APP1 segment; with
    /// `allowingCut`, the part of it inside `bytes` when the segment goes on past their end.
    static func tiffBlockInJPEG(_ bytes: [UInt8], allowingCut: Bool = false) -> Range<Int>? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            // Start of scan or end of image: the metadata segments are all before these.
            if marker == 0xDA || marker == 0xD9 { return nil }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count || (allowingCut && marker == 0xE1) else { return nil }
            let body = (offset + 4)..<min(offset + 2 + length, bytes.count)
            if marker == 0xE1, body.count >= 6, Array(bytes[body.lowerBound..<body.lowerBound + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return (body.lowerBound + 6)..<body.upperBound
            }
            offset += 2 + length
        }
        return nil
    }

    /// The byte range of an `eXIf` chunk's data, looked for before the image data starts.
    static func tiffBlockInPNG(_ bytes: [UInt8]) -> Range<Int>? {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(readUInt32(bytes, offset, bigEndian: true))
            let type = Array(bytes[(offset + 4)..<(offset + 8)])
            let data = offset + 8
            guard length >= 0, data + length <= bytes.count else { return nil }
            if type == Array("eXIf".utf8) { return data..<(data + length) }
            if type == Array("IDAT".utf8) || type == Array("IEND".utf8) { return nil }
            offset = data + length + 4  // skip the CRC
        }
        return nil
    }

    /// Reads tag 0x0112 from IFD0 of the TIFF structure in `range`.
    static func orientation(inTIFF bytes: [UInt8], range: Range<Int>) -> ImageOrientation? {
        let base = range.lowerBound
        let end = range.upperBound
        guard range.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[base], bytes[base + 1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        guard readUInt16(bytes, base + 2, bigEndian: bigEndian) == 42 else { return nil }
        let ifd = base + Int(readUInt32(bytes, base + 4, bigEndian: bigEndian))
        guard ifd >= base + 8, ifd + 2 <= end else { return nil }
        let count = Int(readUInt16(bytes, ifd, bigEndian: bigEndian))
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard entry + 12 <= end else { return nil }
            guard readUInt16(bytes, entry, bigEndian: bigEndian) == 0x0112 else { continue }
            let type = readUInt16(bytes, entry + 2, bigEndian: bigEndian)
            // SHORT is the specified type; some writers use LONG.
            let value: Int
            switch type {
            case 3: value = Int(readUInt16(bytes, entry + 8, bigEndian: bigEndian))
            case 4: value = Int(readUInt32(bytes, entry + 8, bigEndian: bigEndian))
            default: return nil
            }
            return ImageOrientation(rawValue: value)
        }
        return nil
    }

    static func readUInt16(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt16 {
        let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    static func readUInt32(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt32 {
        let values = (0..<4).map { UInt32(bytes[offset + $0]) }
        return bigEndian
            ? values[0] << 24 | values[1] << 16 | values[2] << 8 | values[3]
            : values[3] << 24 | values[2] << 16 | values[1] << 8 | values[0]
    }
}
