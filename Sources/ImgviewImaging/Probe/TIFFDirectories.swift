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
        read(ArrayBytes(bytes))
    }

    /// The directories of the TIFF file in `bytes` (whole, or its first bytes), nil when they
    /// are not one.
    public static func read(_ bytes: some ByteReader) -> TIFFDirectories? {
        guard let layout = TIFFLayout(bytes, in: 0..<bytes.count, allowsBigTIFF: true) else { return nil }
        var next = layout.firstDirectoryOffset ?? 0
        var directories: [Directory] = []
        var visited = Set<Int>()
        var isCut = false
        while next != 0, directories.count < maxDirectories, visited.insert(next).inserted {
            guard let following = layout.nextDirectoryOffset(afterDirectoryAt: next) else {
                isCut = true
                break
            }
            var directory = Directory(index: directories.count, width: 0, height: 0, orientation: .up, subfileType: 0)
            for entry in layout.entries(atOffset: next, limit: 4096) {
                if entry.tag == 34675 {
                    directory.hasColorProfile = true
                    directory.colorProfileLocation = layout.outOfLineValues(entry)
                }
                guard let value = layout.singleInteger(entry) else { continue }
                switch entry.tag {
                case 254: directory.subfileType = value
                case 255: directory.subfileType = value == 2 ? 1 : value == 3 ? 2 : 0  // the old SubfileType
                case 256: directory.width = value
                case 257: directory.height = value
                case 274: directory.orientation = ImageOrientation(rawValue: value) ?? .up
                default: break
                }
            }
            directories.append(directory)
            next = following
        }
        return TIFFDirectories(directories: directories, isCut: isCut)
    }
}
