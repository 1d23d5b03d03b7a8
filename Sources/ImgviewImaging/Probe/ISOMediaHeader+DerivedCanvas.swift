extension ISOMediaHeader {
    /// The first derived image (`grid` or `iovl`) of a HEIF file whose canvas, as its own data
    /// declares it, passes `maxPixelCount` or differs from its item's `ispe`; nil when there is none.
    ///
    /// libheif 1.15 makes the canvas its descriptor says, not the `ispe` the limits were checked
    /// against: a file of a few hundred bytes could make it allocate gigabytes, and a smaller
    /// canvas is an image smaller than its header. The standard has them equal.
    /// `meta` is the whole top-level box, `file` the whole file (a grid's descriptor may be in
    /// `idat` or anywhere in the file).
    public static func derivedCanvasProblem(meta: [UInt8], file: some ByteReader, maxPixelCount: Int) -> CodedSizeProblem? {
        guard let children = metaChildren(meta), let iinf = children.first(where: { $0.type == "iinf" }),
            let iloc = children.first(where: { $0.type == "iloc" }), let locations = itemLocations(meta, iloc: iloc, asLibheif: true)
        else { return nil }
        let derived = itemTypes(meta, iinf: iinf).filter { $0.value == "grid" || $0.value == "iovl" }
        guard !derived.isEmpty else { return nil }
        let sizes = declaredSizes(meta: meta)
        for location in locations {
            guard let type = derived[location.id],
                let data = itemData(location, file: file, meta: meta, children: children, limit: 32),
                let canvas = canvasSize(type: type, descriptor: data.bytes)
            else { continue }
            let declared = sizes[location.id]
            let (pixels, overflow) = canvas.width.multipliedReportingOverflow(by: canvas.height)
            let differs = declared.map { canvas.width != $0.width || canvas.height != $0.height } ?? false
            if overflow || pixels > maxPixelCount || differs {
                return CodedSizeProblem(codedWidth: canvas.width, codedHeight: canvas.height, declared: declared)
            }
        }
        return nil
    }

    /// The output size a `grid` or `iovl` descriptor declares (ISO/IEC 23008-12, 6.6.2.3 and
    /// 6.6.2.2), read as libheif 1.15 reads it: 16-bit sides, or 32-bit when bit 0 of the flags is set.
    static func canvasSize(type: String, descriptor: [UInt8]) -> ImageDimensions? {
        guard descriptor.count >= 2 else { return nil }
        let fieldSize = descriptor[1] & 1 == 1 ? 4 : 2
        // A grid's rows and columns, or an overlay's fill colour (four 16-bit samples), come first.
        let start = type == "grid" ? 4 : 10
        let reader = ArrayBytes(descriptor)
        guard let width = reader.integer(at: start, size: fieldSize, bigEndian: true),
            let height = reader.integer(at: start + fieldSize, size: fieldSize, bigEndian: true)
        else { return nil }
        return ImageDimensions(width: width, height: height)
    }

    /// Each item's `ispe`, by item ID.
    static func declaredSizes(meta: [UInt8]) -> [Int: ImageDimensions] {
        guard let (list, ipmas) = itemProperties(meta: meta) else { return [:] }
        let reader = ArrayBytes(meta)
        var sizes: [Int: ImageDimensions] = [:]
        for association in ipmas.flatMap({ propertyAssociations(meta, ipma: $0) }) {
            for index in association.indices where index >= 1 && index <= list.count {
                let property = list[index - 1]
                guard property.type == "ispe", property.payload.count >= 12, sizes[association.item] == nil else { continue }
                sizes[association.item] = ImageDimensions(
                    width: reader.bigEndian32(at: property.payload.lowerBound + 4) ?? 0,
                    height: reader.bigEndian32(at: property.payload.lowerBound + 8) ?? 0)
            }
        }
        return sizes
    }

    /// An item's data, its extents joined, up to `limit` bytes (`whole` false when there was
    /// more): from the file (construction method 0) or from `meta`'s `idat` (1); nil when an
    /// extent lies outside its source. As libheif 1.15 reads it, whatever file its data
    /// reference names: it reads every item from the file it was given.
    static func itemData(
        _ item: ItemLocation, file: some ByteReader, meta: [UInt8], children: [Box], limit: Int
    ) -> (bytes: [UInt8], whole: Bool)? {
        guard !item.extents.isEmpty else { return nil }
        let source: any ByteReader
        switch item.constructionMethod {
        case 0:
            source = file
        case 1:
            guard let idat = children.first(where: { $0.type == "idat" }) else { return nil }
            source = ArrayBytes(Array(meta[idat.payload]))
        default:
            return nil
        }
        var payload: [UInt8] = []
        for extent in item.extents {
            let start = extent.offset
            let length = extent.length == 0 ? source.count - start : extent.length
            guard start >= 0, length > 0, start <= source.count, length <= source.count - start else { return nil }
            let wanted = min(length, limit - payload.count)
            payload += source.bytes(at: start, count: wanted)
            if wanted < length { return (payload, false) }
        }
        return (payload, true)
    }
}
