import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The headers of a Windows or OS/2 bitmap: size, row order, pixel layout and palette.
///
/// Every field comes from the file and is checked here once, so the decoder can trust it:
/// a known header size, a bit depth and compression that go together, masks that fit in a
/// pixel, pixel data that starts inside the file.
struct BMPHeader: Equatable {
    enum Compression: Equatable {
        /// Uncompressed: palette indices (1, 2, 4, 8 bits) or packed colours (16, 24, 32 bits).
        case none
        /// Run-length encoded palette indices, 8 or 4 bits.
        case rle8, rle4
    }

    var width: Int
    var height: Int
    /// Rows are stored bottom row first unless the height is negative.
    var bottomUp: Bool
    var bitsPerPixel: Int
    var compression: Compression
    /// Red, green, blue and alpha masks for 16- and 32-bit pixels (alpha 0 when there is none).
    var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32)
    /// RGBA for each palette index (8-bit and smaller pixels).
    var palette: [UInt8]
    /// Where the pixel rows start in the file.
    var pixelOffset: Int

    /// Bytes in one stored row: rows are padded to four bytes.
    var rowLength: Int { (width * bitsPerPixel + 31) / 32 * 4 }

    static func == (lhs: BMPHeader, rhs: BMPHeader) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.bottomUp == rhs.bottomUp && lhs.bitsPerPixel == rhs.bitsPerPixel
            && lhs.compression == rhs.compression && lhs.masks == rhs.masks && lhs.palette == rhs.palette
            && lhs.pixelOffset == rhs.pixelOffset
    }

    package static func read(_ data: Data) throws(ImageDecodingError) -> BMPHeader {
        let bytes = [UInt8](data.prefix(14 + 124 + 16 + 256 * 4))
        let reader = ArrayBytes(bytes)
        guard bytes.count >= 18 else { throw .truncated(.bmp) }
        let infoSize = reader.littleEndian32(at: 14) ?? 0
        let core = infoSize == 12
        guard [12, 16, 40, 52, 56, 64, 108, 124].contains(infoSize) else {
            throw .corrupt(.bmp, detail: "unknown header size \(infoSize)")
        }
        guard bytes.count >= 14 + min(infoSize, 40) else { throw .truncated(.bmp) }

        let width: Int
        let signedHeight: Int
        let bitsPerPixel: Int
        var compressionCode = 0
        var colorsUsed = 0
        if core {
            width = reader.littleEndian16(at: 18) ?? 0
            signedHeight = reader.littleEndian16(at: 20) ?? 0
            bitsPerPixel = reader.littleEndian16(at: 24) ?? 0
        } else {
            width = Int(Int32(truncatingIfNeeded: reader.littleEndian32(at: 18) ?? 0))
            signedHeight = Int(Int32(truncatingIfNeeded: reader.littleEndian32(at: 22) ?? 0))
            bitsPerPixel = reader.littleEndian16(at: 28) ?? 0
            // The 16-byte OS/2 header ends before the compression field: it is uncompressed.
            if infoSize >= 40 {
                compressionCode = reader.littleEndian32(at: 30) ?? 0
                colorsUsed = reader.littleEndian32(at: 46) ?? 0
            }
        }
        guard width > 0, signedHeight != 0, signedHeight != Int(Int32.min) else {
            throw .corrupt(.bmp, detail: "width \(width), height \(signedHeight)")
        }
        guard width <= 1 << 24, abs(signedHeight) <= 1 << 24 else {
            throw .corrupt(.bmp, detail: "a side longer than 16,777,216 pixels")
        }

        var compression = Compression.none
        var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) = (0, 0, 0, 0)
        var masksEnd = 14 + infoSize
        switch (compressionCode, bitsPerPixel) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 24):
            break
        case (0, 16):
            masks = (0x7C00, 0x03E0, 0x001F, 0)
        case (0, 32):
            // The fourth byte is alpha when any pixel sets it (see the decoder), as browsers read it.
            masks = (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000)
        case (1, 8) where !core && signedHeight > 0:
            compression = .rle8
        case (2, 4) where !core && signedHeight > 0:
            compression = .rle4
        case (3, 16), (3, 32), (6, 16), (6, 32):
            // BITFIELDS: masks in the V2+ header, or right after a 40-byte one (with alpha for ALPHABITFIELDS).
            let withAlpha = compressionCode == 6 || infoSize >= 56
            let count = withAlpha ? 4 : 3
            let start = 54
            if infoSize == 40 { masksEnd = start + count * 4 }
            guard bytes.count >= start + count * 4 else { throw .truncated(.bmp) }
            let read = (0..<count).map { UInt32(reader.littleEndian32(at: start + $0 * 4) ?? 0) }
            masks = (read[0], read[1], read[2], withAlpha ? read[3] : 0)
            let limit: UInt32 = bitsPerPixel == 16 ? 0xFFFF : 0xFFFF_FFFF
            guard [read[0], read[1], read[2]].allSatisfy({ $0 != 0 && $0 <= limit }), masks.alpha <= limit else {
                throw .corrupt(.bmp, detail: "colour masks that do not fit a \(bitsPerPixel)-bit pixel")
            }
        case (4, _) where infoSize != 64, (5, _) where infoSize != 64:  // OS/2 uses 4 for RLE24
            throw .corrupt(.bmp, detail: "a bitmap wrapping a \(compressionCode == 4 ? "JPEG" : "PNG") is not supported")
        default:
            throw .corrupt(.bmp, detail: "\(bitsPerPixel) bits per pixel with compression \(compressionCode)")
        }

        var palette: [UInt8] = []
        if bitsPerPixel <= 8 {
            let entrySize = core ? 3 : 4
            let entries = colorsUsed > 0 && colorsUsed <= 1 << bitsPerPixel ? colorsUsed : 1 << bitsPerPixel
            // Indices past the palette are drawn black, as browsers draw them.
            palette = [UInt8](repeating: 0, count: 256 * 4)
            for index in 0..<256 { palette[index * 4 + 3] = 255 }
            for index in 0..<entries {
                let entry = masksEnd + index * entrySize
                guard entry + 3 <= bytes.count else { break }  // a short palette leaves the rest black
                palette[index * 4] = bytes[entry + 2]
                palette[index * 4 + 1] = bytes[entry + 1]
                palette[index * 4 + 2] = bytes[entry]
            }
        }
        let pixelOffset = reader.littleEndian32(at: 10) ?? 0
        guard pixelOffset >= 14 + infoSize, pixelOffset < data.count else {
            throw pixelOffset >= data.count && pixelOffset < 1 << 30
                ? .truncated(.bmp) : .corrupt(.bmp, detail: "pixel data offset \(pixelOffset)")
        }
        return BMPHeader(
            width: width, height: abs(signedHeight), bottomUp: signedHeight > 0, bitsPerPixel: bitsPerPixel, compression: compression,
            masks: masks, palette: palette, pixelOffset: pixelOffset)
    }
}
