/// The pages of a TIFF file, read from its chain of image file directories (IFDs) without libtiff.
///
/// A TIFF holds one IFD per image, each pointing to the next; a page is an IFD that is neither a
/// reduced-resolution copy of another (a thumbnail, a pyramid level) nor a transparency mask.
/// Classic TIFF and BigTIFF are read. Every offset comes from the file, so every read is
/// bounds-checked; the walk stops at a loop, at an offset past the data, or after `maxDirectories`.
public struct TIFFDirectories: Sendable, Equatable {
    public struct Directory: Sendable, Equatable {
        /// Its place in the chain, from 0: what libtiff's `TIFFSetDirectory` takes.
        public var index: Int
        public var width: Int
        public var height: Int
        public var orientation: ImageOrientation
        /// NewSubfileType's bits: 1 reduced resolution, 2 one page of several, 4 a mask.
        public var subfileType: Int
        /// Whether it embeds an ICC profile (tag 34675).
        public var hasColorProfile = false
        /// Where its bytes are in the file, when the tag says so.
        public var colorProfileLocation: Range<Int>? = nil

        /// A picture of its own, not a reduced copy or a mask.
        public var isPage: Bool { subfileType & 0b101 == 0 }
    }

    /// In the chain's order.
    public var directories: [Directory]
    /// Whether the chain points past the end of the data (a cut file): later pages may exist.
    public var isCut: Bool

    public static let maxDirectories = 10_000

    /// The pages, in order.
    public var pages: [Directory] { directories.filter(\.isPage) }

    /// The directories of a whole TIFF file, nil when `bytes` are not one.
    public static func read(_ bytes: [UInt8]) -> TIFFDirectories? {
        read { offset, count in
            guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// The directories, reading through `readAt` (up to `count` bytes at `offset`, fewer at the end).
    public static func read(_ readAt: (_ offset: Int, _ count: Int) -> [UInt8]) -> TIFFDirectories? {
        let header = readAt(0, 16)
        guard header.count >= 8, header[0] == header[1], header[0] == 0x49 || header[0] == 0x4D else { return nil }
        let layout = Layout(bigEndian: header[0] == 0x4D, big: false)
        let version = layout.number(header, 2, 2)
        let format: Layout
        var next: Int
        switch version {
        case 42:
            format = layout
            next = layout.number(header, 4, 4)
        case 43:
            // BigTIFF: offsets are 8 bytes, stated as such at 4, and the first IFD's follows.
            guard header.count == 16, layout.number(header, 4, 2) == 8 else { return nil }
            format = Layout(bigEndian: layout.bigEndian, big: true)
            next = layout.number(header, 8, 8)
        default:
            return nil
        }
        var directories: [Directory] = []
        var visited = Set<Int>()
        var isCut = false
        while next != 0, directories.count < maxDirectories, visited.insert(next).inserted {
            let countBytes = readAt(next, format.countSize)
            guard next >= 8, countBytes.count == format.countSize else {
                isCut = true
                break
            }
            let count = min(format.number(countBytes, 0, format.countSize), 4096)
            let entries = readAt(next + format.countSize, count * format.entrySize + format.offsetSize)
            guard entries.count == count * format.entrySize + format.offsetSize else {
                isCut = true
                break
            }
            var directory = Directory(index: directories.count, width: 0, height: 0, orientation: .up, subfileType: 0)
            for entry in stride(from: 0, to: count * format.entrySize, by: format.entrySize) {
                if format.number(entries, entry, 2) == 34675 {
                    directory.hasColorProfile = true
                    directory.colorProfileLocation = format.outOfLineBytes(entries, entry)
                }
                guard let value = format.inlineValue(entries, entry) else { continue }
                switch format.number(entries, entry, 2) {
                case 254: directory.subfileType = value
                case 255: directory.subfileType = value == 2 ? 1 : value == 3 ? 2 : 0  // the old SubfileType
                case 256: directory.width = value
                case 257: directory.height = value
                case 274: directory.orientation = ImageOrientation(rawValue: value) ?? .up
                default: break
                }
            }
            directories.append(directory)
            next = format.number(entries, count * format.entrySize, format.offsetSize)
        }
        return TIFFDirectories(directories: directories, isCut: isCut)
    }

    /// Classic TIFF or BigTIFF, in either byte order.
    private struct Layout {
        let bigEndian: Bool
        /// BigTIFF: 8-byte counts and offsets, 20-byte entries.
        let big: Bool

        var countSize: Int { big ? 8 : 2 }
        var entrySize: Int { big ? 20 : 12 }
        var offsetSize: Int { big ? 8 : 4 }

        func number(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
            guard offset >= 0, offset + count <= bytes.count else { return 0 }
            let range = offset..<offset + count
            // An 8-byte value past what an Int holds is no offset or size a file can have.
            let ordered = bigEndian ? Array(bytes[range]) : Array(bytes[range].reversed())
            guard count < 8 || ordered[0] < 0x80 else { return 0 }
            return ordered.reduce(0) { $0 << 8 | Int($1) }
        }

        /// Where an UNDEFINED or BYTE entry's values are kept, when they do not fit in the entry.
        func outOfLineBytes(_ bytes: [UInt8], _ entry: Int) -> Range<Int>? {
            let countField = big ? 8 : 4
            let count = number(bytes, entry + 4, countField)
            let offset = number(bytes, entry + 4 + countField, offsetSize)
            let end = offset.addingReportingOverflow(count)
            guard [1, 7].contains(number(bytes, entry + 2, 2)), count > countField, !end.overflow else { return nil }
            return offset..<end.partialValue
        }

        /// A SHORT, LONG or LONG8 entry holding one value in the entry itself.
        func inlineValue(_ bytes: [UInt8], _ entry: Int) -> Int? {
            let type = number(bytes, entry + 2, 2)
            let countField = big ? 8 : 4
            guard number(bytes, entry + 4, countField) == 1 else { return nil }
            let valueAt = entry + 4 + countField
            switch type {
            case 3: return number(bytes, valueAt, 2)
            case 4: return number(bytes, valueAt, 4)
            case 16 where big: return number(bytes, valueAt, 8)
            default: return nil
            }
        }
    }
}
