/// Reads the primary image's size from the boxes of an ISO media (HEIF) file: AVIF and HEIC.
///
/// The size lives in an `ispe` property that `ipma` associates with the item `pitm` names, all
/// inside the top-level `meta` box; an `irot` of a quarter or three quarters turns it. Every
/// length and index comes from the file, so each read is bounds-checked and anything
/// malformed means "unknown".
public enum ISOMediaHeader {
    struct ItemSize: Equatable {
        var width: Int
        var height: Int
        /// The `irot` angle, anticlockwise in quarter turns (0 to 3).
        var quarterTurns: Int
        /// A `colr` property (an ICC profile or an nclx description) goes with the item.
        var hasColorDescription: Bool
        /// The payload of the first such `colr` property.
        var colorDescription: Range<Int>? = nil
    }

    /// A box: its four-character type, where it starts, and the range of its payload (after the header).
    public struct Box: Sendable, Equatable {
        public var type: String
        public var start: Int
        /// Cut at the end of what was read when the box runs past it.
        public var payload: Range<Int>
        /// Where the box says it ends, which may be past the end of what was read.
        public var declaredEnd: Int
    }

    /// The primary item's stored size, or nil when the boxes that say it are not in `bytes`.
    static func primaryImageSize(_ bytes: [UInt8]) -> ItemSize? {
        guard let meta = boxes(in: bytes, 0..<bytes.count).first(where: { $0.type == "meta" }),
            meta.payload.count >= 4
        else { return nil }
        let children = boxes(in: bytes, (meta.payload.lowerBound + 4)..<meta.payload.upperBound)  // after version and flags
        guard let primary = children.first(where: { $0.type == "pitm" }).flatMap({ primaryItem(bytes, $0) }),
            let propertiesBox = children.first(where: { $0.type == "iprp" })
        else { return nil }
        let propertyBoxes = boxes(in: bytes, propertiesBox.payload)
        guard let container = propertyBoxes.first(where: { $0.type == "ipco" }) else { return nil }
        let properties = boxes(in: bytes, container.payload)
        let associated = propertyBoxes.filter { $0.type == "ipma" }.flatMap { ipma in
            propertyAssociations(bytes, ipma: ipma).filter { $0.item == primary }.flatMap(\.indices)
        }
        let reader = ArrayBytes(bytes)
        var size: ItemSize?
        var turns = 0
        var hasColor = false
        var colorDescription: Range<Int>?
        for index in associated where index >= 1 && index <= properties.count {
            let property = properties[index - 1]
            let payload = property.payload
            if property.type == "ispe", payload.count >= 12 {
                size = ItemSize(
                    width: reader.bigEndian32(at: payload.lowerBound + 4) ?? 0,
                    height: reader.bigEndian32(at: payload.lowerBound + 8) ?? 0,
                    quarterTurns: 0, hasColorDescription: false)
            } else if property.type == "irot", payload.count >= 1 {
                turns = Int(bytes[payload.lowerBound] & 3)
            } else if property.type == "colr" {
                hasColor = true
                if colorDescription == nil { colorDescription = payload }
            }
        }
        size?.quarterTurns = turns
        size?.hasColorDescription = hasColor
        size?.colorDescription = colorDescription
        return size
    }

    /// The boxes laid end to end in `range`; one that runs past its end comes last, its payload cut at the end.
    public static func boxes(in bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        boxes(in: ArrayBytes(bytes), range)
    }

    /// The most boxes read side by side: libheif's own limit of children per box, so that what
    /// the HEIC checks read is all that libheif reads.
    public static let maxBoxes = 20_000

    /// The boxes laid end to end in `range` of `bytes`, read header by header (a box's payload is
    /// not read); one that runs past its end comes last, its payload cut at the end.
    public static func boxes(in bytes: some ByteReader, _ range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, found.count < maxBoxes {
            guard let (size, header) = boxSize(in: bytes, at: offset, end: range.upperBound) else { break }
            let type = String(decoding: bytes.bytes(at: offset + 4, count: 4), as: UTF8.self)
            // A box that runs past what was read is kept cut short, and is the last one.
            found.append(
                Box(
                    type: type, start: offset, payload: (offset + header)..<min(offset + size, range.upperBound), declaredEnd: offset + size
                ))
            offset += size
        }
        return found
    }

    /// The size of the box that starts at `offset` in `bytes`, and its header's length; `end` is
    /// where what holds the box ends, which a size of 0 runs to.
    ///
    /// Nil when the header is cut short (by `end` or the bytes), the size is smaller than the
    /// header, or a 64-bit size reaches 4 GB (never within a header read, nor within a download
    /// imgview accepts).
    static func boxSize(in bytes: some ByteReader, at offset: Int, end: Int) -> (size: Int, headerLength: Int)? {
        guard offset + 8 <= end, let size = bytes.bigEndian32(at: offset), bytes.byte(at: offset + 7) != nil else { return nil }
        switch size {
        case 0:  // to the end of the enclosing range
            return (end - offset, 8)
        case 1:  // a 64-bit size follows the type
            guard offset + 16 <= end, bytes.bigEndian32(at: offset + 8) == 0, let large = bytes.bigEndian32(at: offset + 12) else {
                return nil
            }
            return large >= 16 ? (large, 16) : nil
        default:
            return size >= 8 ? (size, 8) : nil
        }
    }

    /// How far into the file the items' data reaches, by the `iloc` box inside `meta` (the whole
    /// top-level `meta` box, header included): the end of the furthest extent stored in the file
    /// itself (construction method 0, this file's data reference). Zero when no item's data lies in
    /// the file, nil when there is no `iloc` or it runs past its box.
    static func itemDataEnd(meta: [UInt8]) -> Int? {
        guard let iloc = metaChildren(meta)?.first(where: { $0.type == "iloc" }),
            let items = itemLocations(meta, iloc: iloc)
        else { return nil }
        // A length of 0 means "to the end of the file": it reaches no further than the file does.
        return items.filter { $0.constructionMethod == 0 && $0.dataReference == 0 }.flatMap(\.extents)
            .reduce(0) { max($0, $1.offset + $1.length) }
    }

    /// `pitm`: version 0 holds a 16-bit item ID, later versions a 32-bit one.
    private static func primaryItem(_ bytes: [UInt8], _ box: Box) -> Int? {
        var reader = FieldReader(bytes: ArrayBytes(bytes), position: box.payload.lowerBound, end: box.payload.upperBound)
        guard let version = reader.read(1), reader.skip(3) else { return nil }
        return reader.read(version == 0 ? 2 : 4)
    }

    /// Each item `ipma` lists, with the 1-based indices of its properties, in the box's order;
    /// the walk stops at an entry that runs past the box.
    static func propertyAssociations(_ bytes: [UInt8], ipma: Box) -> [(item: Int, indices: [Int])] {
        var reader = FieldReader(bytes: ArrayBytes(bytes), position: ipma.payload.lowerBound, end: ipma.payload.upperBound)
        guard let version = reader.read(1), reader.skip(2), let flags = reader.read(1), let entryCount = reader.read(4) else {
            return []
        }
        let indexLength = flags & 1 == 1 ? 2 : 1
        // The top bit of an index marks the property essential; the rest is the index.
        let indexMask = indexLength == 2 ? 0x7FFF : 0x7F
        var found: [(item: Int, indices: [Int])] = []
        for _ in 0..<min(entryCount, 65536) {
            guard let item = reader.read(version < 1 ? 2 : 4), let count = reader.read(1) else { break }
            var indices: [Int] = []
            for _ in 0..<count {
                guard let index = reader.read(indexLength) else { return found }
                indices.append(index & indexMask)
            }
            found.append((item, indices))
        }
        return found
    }
}
