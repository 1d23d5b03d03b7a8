/// The block structure of a GIF, walked by its length bytes alone, without decoding a pixel.
///
/// After the header and the global colour table come extensions (0x21, a label, sub-blocks) and
/// images (0x2C, a 9-byte descriptor, an optional local colour table, the LZW code size,
/// sub-blocks), up to the trailer (0x3B). The pipeline walks them to tell a whole GIF from a cut
/// one, the GIF decoder to count frames and their delays without giflib's allocations. Every
/// offset comes from the file, so every read goes through `byte`, which says nil past the end.
public enum GIFBlocks {
    /// A block, as the walk meets it.
    public enum Block: Sendable, Equatable {
        /// An extension: its label, and the offset of its first sub-block's length byte (which is there).
        case `extension`(label: UInt8, subBlocks: Int)
        /// An image, by the offset of its introducer; the 10 bytes of introducer and descriptor are there.
        case image(at: Int)
    }

    /// Where a walk stopped.
    public enum End: Sendable, Equatable {
        /// At the trailer.
        case trailer
        /// The data ended first, inside a block or between two.
        case cut
        /// At a byte that starts no block: what follows is not GIF.
        case stray
    }

    /// Walks the blocks of the GIF whose bytes `byte` reads, handing each to `visit` as it starts.
    public static func walk(byte: (_ offset: Int) -> UInt8?, visit: (Block) -> Void = { _ in }) -> End {
        guard byte(12) != nil, let flags = byte(10) else { return .cut }
        var offset = 13 + colorTableSize(flags)
        while let introducer = byte(offset) {
            switch introducer {
            case 0x3B:
                return .trailer
            case 0x21:
                guard let label = byte(offset + 1), byte(offset + 2) != nil else { return .cut }
                visit(.extension(label: label, subBlocks: offset + 2))
                offset += 2
            case 0x2C:
                guard let imageFlags = byte(offset + 9) else { return .cut }
                visit(.image(at: offset))
                offset += 10 + colorTableSize(imageFlags) + 1  // the LZW minimum code size follows the table
            default:
                return .stray
            }
            // Sub-blocks: a length byte before each, a zero one after the last.
            while true {
                guard let length = byte(offset) else { return .cut }
                offset += 1 + Int(length)
                if length == 0 { break }
            }
        }
        return .cut
    }

    /// The bytes of the colour table a screen descriptor's or an image descriptor's flags announce.
    private static func colorTableSize(_ flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }
}
