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
        let associated = propertyBoxes.filter { $0.type == "ipma" }.flatMap { associations(bytes, $0, item: primary) }
        var size: ItemSize?
        var turns = 0
        var hasColor = false
        var colorDescription: Range<Int>?
        for index in associated where index >= 1 && index <= properties.count {
            let property = properties[index - 1]
            let payload = property.payload
            if property.type == "ispe", payload.count >= 12 {
                size = ItemSize(
                    width: bigEndian32(bytes, payload.lowerBound + 4), height: bigEndian32(bytes, payload.lowerBound + 8),
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
        var found: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, found.count < 4096 {
            guard
                let (size, header) = boxSize(
                    header: bytes[offset..<min(offset + 16, range.upperBound)], available: range.upperBound - offset)
            else { break }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            // A box that runs past what was read is kept cut short, and is the last one.
            found.append(
                Box(
                    type: type, start: offset, payload: (offset + header)..<min(offset + size, range.upperBound), declaredEnd: offset + size
                ))
            offset += size
        }
        return found
    }

    /// The size of the box whose header `header` holds (its first 16 bytes, or fewer where the data
    /// ends), and the header's length; `available` is how many bytes there are from the box's start
    /// to the end of what holds it, where a size of 0 runs to.
    ///
    /// Nil when the header is cut short, the size is smaller than the header, or a 64-bit size
    /// reaches 4 GB (never within a header read, nor within a download imgview accepts).
    static func boxSize(header: ArraySlice<UInt8>, available: Int) -> (size: Int, headerLength: Int)? {
        func word(_ index: Int) -> Int {
            let start = header.startIndex + index
            return (start..<start + 4).reduce(0) { $0 << 8 | Int(header[$1]) }
        }
        guard header.count >= 8 else { return nil }
        let size = word(0)
        switch size {
        case 0:  // to the end of the enclosing range
            return available >= 8 ? (available, 8) : nil
        case 1:  // a 64-bit size follows the type
            guard header.count >= 16, word(8) == 0 else { return nil }
            let large = word(12)
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
        let start = box.payload.lowerBound
        guard box.payload.count >= 6 else { return nil }
        if bytes[start] == 0 { return Int(bytes[start + 4]) << 8 | Int(bytes[start + 5]) }
        guard box.payload.count >= 8 else { return nil }
        return bigEndian32(bytes, start + 4)
    }

    /// The 1-based property indices `ipma` associates with `item`.
    private static func associations(_ bytes: [UInt8], _ box: Box, item: Int) -> [Int] {
        let payload = box.payload
        guard payload.count >= 8 else { return [] }
        let version = bytes[payload.lowerBound]
        let wideIndices = bytes[payload.lowerBound + 3] & 1 == 1
        let entryCount = bigEndian32(bytes, payload.lowerBound + 4)
        var offset = payload.lowerBound + 8
        for _ in 0..<min(entryCount, 65536) {
            let idLength = version < 1 ? 2 : 4
            guard offset + idLength + 1 <= payload.upperBound else { return [] }
            let id =
                idLength == 2 ? Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) : bigEndian32(bytes, offset)
            let count = Int(bytes[offset + idLength])
            offset += idLength + 1
            let indexLength = wideIndices ? 2 : 1
            guard offset + count * indexLength <= payload.upperBound else { return [] }
            if id == item {
                return (0..<count).map { position in
                    let at = offset + position * indexLength
                    // The top bit marks the property essential; the rest is the index.
                    return wideIndices ? (Int(bytes[at]) << 8 | Int(bytes[at + 1])) & 0x7FFF : Int(bytes[at] & 0x7F)
                }
            }
            offset += count * indexLength
        }
        return []
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> Int {
        ArrayBytes(bytes).bigEndian32(at: offset) ?? 0
    }
}
