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
    ///
    /// `asLibheif` reads it as libheif 1.15 does, which the HEIC checks must: fields of sizes
    /// other than 4 and 8 are not read (and are 0), extent indices only from version 2, and a
    /// construction method from version 1 up.
    static func itemLocations(_ bytes: [UInt8], iloc: Box, asLibheif: Bool = false) -> [ItemLocation]? {
        var reader = FieldReader(bytes: ArrayBytes(bytes), position: iloc.payload.lowerBound, end: iloc.payload.upperBound)
        guard let version = reader.read(1), reader.skip(3), let sizes = reader.read(1), let moreSizes = reader.read(1) else { return nil }
        func size(_ field: Int) -> Int { !asLibheif || field == 4 || field == 8 ? field : 0 }
        let offsetSize = size(sizes >> 4)
        let lengthSize = size(sizes & 0xF)
        let baseOffsetSize = size(moreSizes >> 4)
        let indexSize = version == 2 || (version == 1 && !asLibheif) ? size(moreSizes & 0xF) : 0
        guard let itemCount = reader.read(version < 2 ? 2 : 4) else { return nil }
        var items: [ItemLocation] = []
        for _ in 0..<itemCount {
            guard let id = reader.read(version < 2 ? 2 : 4) else { return nil }
            var method = 0
            if version == 1 || version == 2 || (asLibheif && version > 2) {
                guard let field = reader.read(2) else { return nil }
                method = field & 0xF
            }
            guard let reference = reader.read(2), let base = reader.read(baseOffsetSize), let extentCount = reader.read(2) else {
                return nil
            }
            var item = ItemLocation(id: id, constructionMethod: method, dataReference: reference, extents: [])
            defer { items.append(item) }
            // libheif keeps such an item's extents: each from the base offset to the end of the data.
            guard indexSize + offsetSize + lengthSize > 0 || asLibheif else { continue }
            guard !asLibheif || extentCount <= 32 else { return nil }  // libheif refuses the file past 32
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

    /// What decoding the images of a HEIF `meta` box (the whole top-level box, header included)
    /// would ask of libheif 1.15, by its `iref`: a derived image (`dimg`) decodes the images it is
    /// made from, and an image decodes the auxiliary (`auxl`, alpha) images that name it.
    public enum DecodingLoad: Sendable, Equatable {
        case bounded
        /// An image leads back to itself. libheif refuses only one that names itself, and
        /// otherwise recurses without end until the stack overflows.
        case cycle
        /// Derived more than `maxDerivationDepth` deep: libheif recurses once a level.
        case tooDeep
        /// One image would take more than `maxDecodesPerImage` decodes: a grid may name the same
        /// tile, or a grid of grids, any number of times.
        case tooManyDecodes
    }

    /// How deep images may be derived: a camera's is 3 at most (a rotation of a grid of tiles, with
    /// its alpha grid).
    public static let maxDerivationDepth = 8

    /// How many decodes one image may take: a 256-pixel tile per decode covers libheif's largest
    /// image, 32,768 pixels a side.
    public static let maxDecodesPerImage = 16_384

    public static func decodingLoad(meta: [UInt8]) -> DecodingLoad {
        guard let iref = metaChildren(meta)?.first(where: { $0.type == "iref" }) else { return .bounded }
        var decodes: [Int: [Int]] = [:]
        for reference in itemReferences(meta, iref: iref) where reference.type == "dimg" || reference.type == "auxl" {
            for to in reference.to {
                // `auxl` points from the auxiliary image to the one it belongs to, which decodes it.
                if reference.type == "dimg" {
                    decodes[reference.from, default: []].append(to)
                } else {
                    decodes[to, default: []].append(reference.from)
                }
            }
        }
        // Depth first, without recursion of its own, each item's depth and decode count worked
        // out once: an item on the path walked that is met again closes a loop.
        var depth: [Int: Int] = [:]
        var count: [Int: Int] = [:]
        var onPath: Set<Int> = []
        for start in decodes.keys where depth[start] == nil {
            var path: [(item: Int, next: Int)] = [(start, 0)]
            onPath.insert(start)
            while let top = path.last {
                let sources = decodes[top.item] ?? []
                if top.next < sources.count {
                    path[path.count - 1].next += 1
                    let source = sources[top.next]
                    if onPath.contains(source) { return .cycle }
                    if depth[source] == nil {
                        guard path.count <= maxDerivationDepth else { return .tooDeep }
                        onPath.insert(source)
                        path.append((source, 0))
                    }
                    continue
                }
                let itemDepth = (sources.map { depth[$0] ?? 0 }.max() ?? -1) + 1
                let itemCount = sources.reduce(1) { min(maxDecodesPerImage + 1, $0 + (count[$1] ?? 1)) }
                guard itemDepth <= maxDerivationDepth else { return .tooDeep }
                guard itemCount <= maxDecodesPerImage else { return .tooManyDecodes }
                (depth[top.item], count[top.item]) = (itemDepth, itemCount)
                onPath.remove(top.item)
                path.removeLast()
            }
        }
        return .bounded
    }

    /// The references of an `iref` box as libheif 1.15 reads them: one after another, each a box
    /// header (its size read but not obeyed), the item it is from, a count and the items it names,
    /// until the `iref` ends. A reference cut short keeps the items read before the end.
    static func itemReferences(_ meta: [UInt8], iref: Box) -> [(type: String, from: Int, to: [Int])] {
        guard iref.payload.count >= 4 else { return [] }
        // Version 0 holds 16-bit item IDs, later versions 32-bit ones.
        let idLength = meta[iref.payload.lowerBound] == 0 ? 2 : 4
        var reader = FieldReader(bytes: ArrayBytes(meta), position: iref.payload.lowerBound + 4, end: iref.payload.upperBound)
        var references: [(type: String, from: Int, to: [Int])] = []
        while reader.position < reader.end {
            let typeAt = reader.position + 4
            guard let size = reader.read(4), reader.skip(4) else { break }
            let type = String(decoding: meta[typeAt..<typeAt + 4], as: UTF8.self)
            if size == 1 { guard reader.skip(8) else { break } }
            if type == "uuid" { guard reader.skip(16) else { break } }
            guard let from = reader.read(idLength), let count = reader.read(2) else { break }
            var to: [Int] = []
            for _ in 0..<count {
                guard let item = reader.read(idLength) else { break }
                to.append(item)
            }
            references.append((type, from, to))
        }
        return references
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
