extension ISOMediaHeader {
    /// Where one item's data is, as `iloc` says: how it is found (construction method 0 is an
    /// offset in a file, 1 an offset in `meta`'s own `idat`), in which file (0: this one), and
    /// its extents, their base offset added.
    struct ItemLocation: Equatable {
        var id: Int
        var constructionMethod: Int
        var dataReference: Int
        /// Absolute offsets; a length of 0 means "to the end of the data".
        var extents: [(offset: Int, length: Int)]

        static func == (lhs: ItemLocation, rhs: ItemLocation) -> Bool {
            lhs.id == rhs.id && lhs.constructionMethod == rhs.constructionMethod && lhs.dataReference == rhs.dataReference
                && lhs.extents.elementsEqual(rhs.extents) { $0.offset == $1.offset && $0.length == $1.length }
        }
    }

    /// The children of a top-level `meta` box (its whole bytes, header included); nil when `meta`
    /// is not a `meta` box.
    static func metaChildren(_ meta: [UInt8]) -> [Box]? {
        guard let box = boxes(in: meta, 0..<meta.count).first, box.type == "meta", box.payload.count >= 4 else { return nil }
        return boxes(in: meta, (box.payload.lowerBound + 4)..<box.payload.upperBound)  // after version and flags
    }

    /// Every item `iloc` places, in the order it lists them; nil when a field runs past the box
    /// or an offset overflows. Items whose offset and length fields are all of size 0 say
    /// nothing of where they are, and are listed without extents (their extent count is not
    /// walked, which would cost a turn each without reading a byte).
    static func itemLocations(_ bytes: [UInt8], iloc: Box) -> [ItemLocation]? {
        var reader = FieldReader(bytes: ArrayBytes(bytes), position: iloc.payload.lowerBound, end: iloc.payload.upperBound)
        guard let version = reader.read(1), reader.skip(3), let sizes = reader.read(1), let moreSizes = reader.read(1) else { return nil }
        let offsetSize = sizes >> 4
        let lengthSize = sizes & 0xF
        let baseOffsetSize = moreSizes >> 4
        let indexSize = version == 1 || version == 2 ? moreSizes & 0xF : 0
        guard let itemCount = reader.read(version < 2 ? 2 : 4) else { return nil }
        var items: [ItemLocation] = []
        for _ in 0..<itemCount {
            guard let id = reader.read(version < 2 ? 2 : 4) else { return nil }
            var method = 0
            if version == 1 || version == 2 {
                guard let field = reader.read(2) else { return nil }
                method = field & 0xF
            }
            guard let reference = reader.read(2), let base = reader.read(baseOffsetSize), let extentCount = reader.read(2) else {
                return nil
            }
            var item = ItemLocation(id: id, constructionMethod: method, dataReference: reference, extents: [])
            defer { items.append(item) }
            guard indexSize + offsetSize + lengthSize > 0 else { continue }
            for _ in 0..<extentCount {
                guard reader.skip(indexSize), let offset = reader.read(offsetSize), let length = reader.read(lengthSize) else {
                    return nil
                }
                let (start, startOverflow) = base.addingReportingOverflow(offset)
                let (_, endOverflow) = start.addingReportingOverflow(length)
                guard !startOverflow, !endOverflow else { return nil }
                item.extents.append((start, length))
            }
        }
        return items
    }

    /// The type of each item `iinf` describes (`hvc1`, `av01`, `grid`, `Exif`, `mime`…), by item
    /// ID: from its `infe` entries of version 2 and 3 (earlier versions name no type).
    static func itemTypes(_ bytes: [UInt8], iinf: Box) -> [Int: String] {
        guard iinf.payload.count >= 6 else { return [:] }
        // The entry count is 16 bits in version 0 and 32 after; the entries are boxes after it.
        let entriesStart = iinf.payload.lowerBound + (bytes[iinf.payload.lowerBound] == 0 ? 6 : 8)
        guard entriesStart <= iinf.payload.upperBound else { return [:] }
        var types: [Int: String] = [:]
        for entry in boxes(in: bytes, entriesStart..<iinf.payload.upperBound) where entry.type == "infe" {
            let start = entry.payload.lowerBound
            let version = entry.payload.count >= 4 ? bytes[start] : 0
            let idLength = version == 3 ? 4 : 2
            // Version and flags, the item ID, its protection index (16 bits), then the type.
            let typeStart = start + 4 + idLength + 2
            guard version >= 2, typeStart + 4 <= entry.payload.upperBound,
                let id = ArrayBytes(bytes).integer(at: start + 4, size: idLength, bigEndian: true)
            else { continue }
            if types[id] == nil { types[id] = String(decoding: bytes[typeStart..<(typeStart + 4)], as: UTF8.self) }
        }
        return types
    }

    /// Whether decoding an image of a `meta` box (the whole top-level box, header included) leads
    /// back to itself through its `iref`: a derived image (`dimg`) decodes the images it is made
    /// from, and an image decodes the auxiliary (`auxl`, alpha) images that name it. libheif 1.15
    /// refuses only an image that names itself, and otherwise follows a loop without end when it
    /// decodes, until the stack overflows.
    public static func hasDecodingCycle(meta: [UInt8]) -> Bool {
        guard let iref = metaChildren(meta)?.first(where: { $0.type == "iref" }), iref.payload.count >= 4 else { return false }
        // Version 0 holds 16-bit item IDs, later versions 32-bit ones.
        let idLength = meta[iref.payload.lowerBound] == 0 ? 2 : 4
        var decodes: [Int: [Int]] = [:]
        for reference in boxes(in: meta, (iref.payload.lowerBound + 4)..<iref.payload.upperBound)
        where reference.type == "dimg" || reference.type == "auxl" {
            var reader = FieldReader(bytes: ArrayBytes(meta), position: reference.payload.lowerBound, end: reference.payload.upperBound)
            guard let from = reader.read(idLength), let count = reader.read(2) else { continue }
            for _ in 0..<count {
                guard let to = reader.read(idLength) else { break }
                // `auxl` points from the auxiliary image to the one it belongs to, which decodes it.
                if reference.type == "dimg" { decodes[from, default: []].append(to) } else { decodes[to, default: []].append(from) }
            }
        }
        // Depth first, without recursion of its own: false marks an item on the path walked, true one done.
        var state: [Int: Bool] = [:]
        for start in decodes.keys where state[start] == nil {
            var path: [(item: Int, next: Int)] = [(start, 0)]
            state[start] = false
            while let top = path.last {
                let sources = decodes[top.item] ?? []
                guard top.next < sources.count else {
                    state[top.item] = true
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                switch state[sources[top.next]] {
                case false?: return true
                case true?: continue
                case nil:
                    state[sources[top.next]] = false
                    path.append((sources[top.next], 0))
                }
            }
        }
        return false
    }

    /// Big-endian fields of 0 to 8 bytes read one after another, within `end`.
    struct FieldReader {
        let bytes: ArrayBytes
        var position: Int
        let end: Int

        mutating func read(_ size: Int) -> Int? {
            guard size <= 8, position + size <= end else { return nil }
            // An 8-byte field past what an Int holds is no offset a file can have.
            guard size < 8 || (bytes.byte(at: position) ?? 0x80) < 0x80,
                let value = size == 0 ? 0 : bytes.integer(at: position, size: size, bigEndian: true)
            else { return nil }
            position += size
            return value
        }

        mutating func skip(_ size: Int) -> Bool {
            guard position + size <= end else { return false }
            position += size
            return true
        }
    }
}
