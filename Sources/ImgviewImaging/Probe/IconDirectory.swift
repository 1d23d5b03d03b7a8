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
        read { offset, count in
            guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// The directory, reading through `readAt` (up to `count` bytes at `offset`, fewer at the end).
    public static func read(_ readAt: (_ offset: Int, _ count: Int) -> [UInt8]) -> IconDirectory? {
        let head = readAt(0, 6)
        guard head.count == 6, head[0] == 0, head[1] == 0, head[3] == 0, head[2] == 1 || head[2] == 2 else { return nil }
        let count = min(little(head, 4, 2), maxEntries)
        let table = readAt(6, count * 16)
        var entries: [Entry] = []
        for index in 0..<table.count / 16 {
            let at = index * 16
            let length = little(table, at + 8, 4)
            let offset = little(table, at + 12, 4)
            guard offset >= 6 + count * 16, length > 0 else { continue }
            var entry = Entry(
                width: table[at] == 0 ? 256 : Int(table[at]), height: table[at + 1] == 0 ? 256 : Int(table[at + 1]),
                bitsPerPixel: head[2] == 1 ? little(table, at + 6, 2) : 0, offset: offset, length: length, isPNG: false)
            let data = readAt(offset, 32)
            if data.starts(with: pngSignature) {
                entry.isPNG = true
                guard data.count >= 26, Array(data[12..<16]) == Array("IHDR".utf8) else { continue }
                entry.width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
                entry.height = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
                // Depth × channels, from the bit depth and colour type.
                let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(data[25])] ?? 1
                entry.bitsPerPixel = Int(data[24]) * channels
                // PNG allows at most 2³¹ − 1 a side, which keeps `largest`'s products within Int.
                guard entry.width <= Int(Int32.max), entry.height <= Int(Int32.max) else { continue }
            } else if data.count >= 16, [40, 52, 56, 108, 124].contains(little(data, 0, 4)) {
                // The height counts the picture and its AND mask: twice the picture's.
                entry.width = Int(Int32(truncatingIfNeeded: little(data, 4, 4)))
                entry.height = Int(Int32(truncatingIfNeeded: little(data, 8, 4))) / 2
                entry.bitsPerPixel = little(data, 14, 2)
            } else if data.count >= 12, little(data, 0, 4) == 12 {
                entry.width = little(data, 4, 2)
                entry.height = little(data, 6, 2) / 2
                entry.bitsPerPixel = little(data, 10, 2)
            } else {
                continue  // neither: nothing to show from it
            }
            guard entry.width > 0, entry.height > 0 else { continue }
            entries.append(entry)
        }
        return IconDirectory(kind: head[2] == 1 ? .icon : .cursor, entries: entries)
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static func little(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        guard offset + count <= bytes.count else { return 0 }
        return bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
