/// The pictures an icon (ICO) or cursor (CUR) file holds, and the one to show: the largest.
///
/// The directory lists each picture's size, but a byte holds at most 255 (0 means 256, or "see
/// the PNG"), and writers get it wrong; so each picture's size is read from its own data — a
/// PNG's IHDR, or the bitmap header of a DIB, whose height counts the AND mask too — and the
/// directory's is used only when the data cannot be reached. Every offset comes from the file, so
/// every read is bounds-checked and anything malformed is left out.
public struct IconDirectory: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case icon
        case cursor
    }

    /// One picture of the directory.
    public struct Entry: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Bits per pixel, from the data when it says (0 when unknown).
        public var bitsPerPixel: Int
        /// Where the picture's bytes start in the file, and how many the directory says there are.
        public var offset: Int
        public var length: Int
        /// A PNG file; otherwise a bitmap (DIB) without its file header, with an AND mask after its rows.
        public var isPNG: Bool
    }

    public var kind: Kind
    /// In the directory's order; at most `maxEntries`.
    public var entries: [Entry]

    /// Pictures looked at, at most: real icons hold a handful.
    public static let maxEntries = 256

    /// The picture to show: the most pixels, then the most bits per pixel; nil when there is none.
    public var largest: Entry? {
        entries.max { ($0.width * $0.height, $0.bitsPerPixel) < ($1.width * $1.height, $1.bitsPerPixel) }
    }

    /// The directory of the icon or cursor in a whole file, nil when `bytes` are not one.
    public static func read(_ bytes: [UInt8]) -> IconDirectory? {
        read(ArrayBytes(bytes))
    }

    /// The directory of the icon or cursor in `bytes` (a whole file, or its first bytes), nil
    /// when they are not one.
    public static func read(_ bytes: some ByteReader) -> IconDirectory? {
        let head = bytes.bytes(at: 0, count: 6)
        guard head.count == 6, head[0] == 0, head[1] == 0, head[3] == 0, head[2] == 1 || head[2] == 2 else { return nil }
        let count = min(bytes.littleEndian16(at: 4) ?? 0, maxEntries)
        var entries: [Entry] = []
        for index in 0..<count {
            let at = 6 + index * 16
            guard bytes.byte(at: at + 15) != nil else { break }  // the table is cut short
            let length = bytes.littleEndian32(at: at + 8) ?? 0
            let offset = bytes.littleEndian32(at: at + 12) ?? 0
            guard offset >= 6 + count * 16, length > 0 else { continue }
            let side = { (byte: UInt8?) in byte == 0 ? 256 : Int(byte ?? 0) }
            var entry = Entry(
                width: side(bytes.byte(at: at)), height: side(bytes.byte(at: at + 1)),
                bitsPerPixel: head[2] == 1 ? bytes.littleEndian16(at: at + 6) ?? 0 : 0, offset: offset, length: length, isPNG: false)
            let data = ArrayBytes(bytes.bytes(at: offset, count: 32))
            if data.matches(pngSignature, at: 0) {
                entry.isPNG = true
                guard data.count >= 26, data.matches(Array("IHDR".utf8), at: 12), let width = data.bigEndian32(at: 16),
                    let height = data.bigEndian32(at: 20), let depth = data.byte(at: 24), let colorType = data.byte(at: 25)
                else { continue }
                (entry.width, entry.height) = (width, height)
                // Depth × channels, from the bit depth and colour type.
                entry.bitsPerPixel = Int(depth) * ([0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 1)
                // PNG allows at most 2³¹ − 1 a side, which keeps `largest`'s products within Int.
                guard entry.width <= Int(Int32.max), entry.height <= Int(Int32.max) else { continue }
            } else if data.count >= 16, let size = data.littleEndian32(at: 0), [40, 52, 56, 108, 124].contains(size) {
                // The height counts the picture and its AND mask: twice the picture's.
                entry.width = Int(Int32(truncatingIfNeeded: data.littleEndian32(at: 4) ?? 0))
                entry.height = Int(Int32(truncatingIfNeeded: data.littleEndian32(at: 8) ?? 0)) / 2
                entry.bitsPerPixel = data.littleEndian16(at: 14) ?? 0
            } else if data.count >= 12, data.littleEndian32(at: 0) == 12 {
                entry.width = data.littleEndian16(at: 4) ?? 0
                entry.height = (data.littleEndian16(at: 6) ?? 0) / 2
                entry.bitsPerPixel = data.littleEndian16(at: 10) ?? 0
            } else {
                continue  // neither: nothing to show from it
            }
            guard entry.width > 0, entry.height > 0 else { continue }
            entries.append(entry)
        }
        return IconDirectory(kind: head[2] == 1 ? .icon : .cursor, entries: entries)
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
