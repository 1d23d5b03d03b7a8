extension ISOMediaHeader {
    /// An HEVC-coded item whose stream says a larger picture than the file admits to.
    public struct CodedSizeProblem: Sendable, Equatable {
        /// The picture size the stream's sequence parameter set declares, which libde265 allocates.
        public var codedWidth: Int
        public var codedHeight: Int
        /// The item's own `ispe`, when it has one.
        public var declared: ImageDimensions?
    }

    /// How far a coded picture may pass its `ispe`: HEVC codes whole blocks (up to 64 pixels)
    /// and crops the rest with its conformance window.
    static let codingPadding = 64

    /// The first item of a HEIF `meta` box (the whole top-level box, header included) whose HEVC
    /// configuration (`hvcC`) declares a picture past `maxPixelCount`, or larger than the item's
    /// `ispe` by more than a coding block; nil when there is none.
    ///
    /// libheif 1.15 does not compare them, and libde265 allocates what the stream says: a file
    /// could declare a small `ispe` and a huge stream. Every read is bounds-checked.
    public static func codedSizeProblem(meta: [UInt8], maxPixelCount: Int) -> CodedSizeProblem? {
        guard let (list, ipmas) = itemProperties(meta: meta) else { return nil }
        let associated = ipmas.flatMap { propertyAssociations(meta, ipma: $0).map(\.indices) }
        let reader = ArrayBytes(meta)
        // An hvcC no item points to is checked against the pixel limit alone.
        let loose = Set(list.indices.map { $0 + 1 }).subtracting(associated.joined())
        for indices in associated + loose.map({ [$0] }) {
            var declared: ImageDimensions?
            var coded: (width: Int, height: Int)?
            for index in indices where index >= 1 && index <= list.count {
                let property = list[index - 1]
                if property.type == "ispe", property.payload.count >= 12 {
                    declared = ImageDimensions(
                        width: reader.bigEndian32(at: property.payload.lowerBound + 4) ?? 0,
                        height: reader.bigEndian32(at: property.payload.lowerBound + 8) ?? 0)
                } else if property.type == "hvcC" {
                    coded = HEVCSequence.pictureSize(inConfiguration: Array(meta[property.payload]))
                }
            }
            guard let coded else { continue }
            let pixels = coded.width.multipliedReportingOverflow(by: coded.height)
            let passesDeclared =
                declared.map { coded.width > $0.width + codingPadding || coded.height > $0.height + codingPadding } ?? false
            if pixels.overflow || pixels.partialValue > maxPixelCount || passesDeclared {
                return CodedSizeProblem(codedWidth: coded.width, codedHeight: coded.height, declared: declared)
            }
        }
        return nil
    }

    /// The sample formats of every HEVC configuration (`hvcC`) in a HEIF `meta` box: chroma
    /// (0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4) and the bit depths of luma and chroma. Empty
    /// when there is none that reads.
    public static func codedSampleFormats(meta: [UInt8]) -> Set<HEVCSampleFormat> {
        guard let (list, _) = itemProperties(meta: meta) else { return [] }
        var found: Set<HEVCSampleFormat> = []
        for property in list where property.type == "hvcC" && property.payload.count >= 23 {
            // Bytes 16–18 of the record (ISO/IEC 14496-15, 8.3.3.1): chroma_format_idc, then the
            // luma and chroma depths less 8, each under reserved bits.
            let at = property.payload.lowerBound
            found.insert(
                HEVCSampleFormat(
                    chroma: Int(meta[at + 16] & 3), lumaBits: Int(meta[at + 17] & 7) + 8, chromaBits: Int(meta[at + 18] & 7) + 8))
        }
        return found
    }

    /// The largest picture (by pixels) any HEVC configuration (`hvcC`) in a HEIF `meta` box
    /// declares, which is what libde265 allocates for one stream at a time; nil when none reads.
    public static func largestCodedPicture(meta: [UInt8]) -> ImageDimensions? {
        guard let (list, _) = itemProperties(meta: meta) else { return nil }
        var largest: ImageDimensions?
        for property in list where property.type == "hvcC" {
            guard let coded = HEVCSequence.pictureSize(inConfiguration: Array(meta[property.payload])) else { continue }
            let (pixels, overflow) = coded.width.multipliedReportingOverflow(by: coded.height)
            if !overflow, pixels > (largest.map { $0.width * $0.height } ?? 0) {
                largest = ImageDimensions(width: coded.width, height: coded.height)
            }
        }
        return largest
    }

    /// The properties in a top-level `meta` box's `ipco` (the whole box, header included), in
    /// order (an `ipma` index of 1 is the first), and the `ipma` boxes beside it; nil when the
    /// box holds no `iprp` with an `ipco`.
    static func itemProperties(meta: [UInt8]) -> (properties: [Box], ipma: [Box])? {
        guard let iprp = metaChildren(meta)?.first(where: { $0.type == "iprp" }) else { return nil }
        let children = boxes(in: meta, iprp.payload)
        guard let ipco = children.first(where: { $0.type == "ipco" }) else { return nil }
        return (boxes(in: meta, ipco.payload), children.filter { $0.type == "ipma" })
    }
}

/// How an HEVC stream stores its samples, as its configuration record says.
public struct HEVCSampleFormat: Sendable, Hashable {
    /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chroma: Int
    public var lumaBits: Int
    public var chromaBits: Int
}

/// The picture size an HEVC sequence parameter set declares (ITU-T H.265, 7.3.2.2).
enum HEVCSequence {
    /// The largest picture any SPS of an `hvcC` configuration record declares; nil when it holds none that reads.
    static func pictureSize(inConfiguration record: [UInt8]) -> (width: Int, height: Int)? {
        // 22 bytes of profile, level and format fields, then the arrays of parameter sets.
        guard record.count >= 23 else { return nil }
        let reader = ArrayBytes(record)
        var offset = 23
        var largest: (width: Int, height: Int)?
        for _ in 0..<Int(record[22]) {
            guard offset + 3 <= record.count else { break }
            // The array's own type is not trusted: libheif hands libde265 every unit of every
            // array, and libde265 goes by each unit's header, which `pictureSize(ofUnit:)` reads.
            let count = reader.bigEndian16(at: offset + 1) ?? 0
            offset += 3
            for _ in 0..<count {
                guard offset + 2 <= record.count else { return largest }
                let length = reader.bigEndian16(at: offset) ?? 0
                offset += 2
                guard offset + length <= record.count else { return largest }
                if let size = pictureSize(ofUnit: Array(record[offset..<offset + length])),
                    area(size) > (largest.map(area) ?? -1)
                {
                    largest = size
                }
                offset += length
            }
        }
        return largest
    }

    /// Pixels in a picture, `Int.max` when they do not fit: each side is read from up to 32 bits.
    private static func area(_ size: (width: Int, height: Int)) -> Int {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        return overflow ? .max : pixels
    }

    /// `pic_width_in_luma_samples` and `pic_height_in_luma_samples` of one SPS NAL unit.
    static func pictureSize(ofUnit unit: [UInt8]) -> (width: Int, height: Int)? {
        guard unit.count > 2, (unit[0] >> 1) & 0x3F == 33 else { return nil }
        // The payload without its emulation prevention bytes (00 00 03 stands for 00 00).
        var payload: [UInt8] = []
        var zeros = 0
        for byte in unit.dropFirst(2) {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            payload.append(byte)
        }
        var bits = BitReader(bytes: payload)
        guard bits.skip(4), let maxSubLayersMinus1 = bits.read(3), bits.skip(1) else { return nil }
        // profile_tier_level: the general profile (88 bits) and level (8), then the sub-layers'.
        guard bits.skip(96) else { return nil }
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
            profilePresent.append(profile == 1)
            levelPresent.append(level == 1)
        }
        if maxSubLayersMinus1 > 0 { guard bits.skip(2 * (8 - maxSubLayersMinus1)) else { return nil } }
        for layer in 0..<maxSubLayersMinus1 {
            guard bits.skip((profilePresent[layer] ? 88 : 0) + (levelPresent[layer] ? 8 : 0)) else { return nil }
        }
        guard bits.readExpGolomb() != nil, let chroma = bits.readExpGolomb() else { return nil }
        if chroma == 3 { guard bits.skip(1) else { return nil } }
        guard let width = bits.readExpGolomb(), let height = bits.readExpGolomb(), width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// Bits most significant first, as H.265 packs them.
    private struct BitReader {
        let bytes: [UInt8]
        var position = 0

        mutating func read(_ count: Int) -> Int? {
            guard count <= 32, position + count <= bytes.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(bytes[position / 8] >> (7 - position % 8) & 1)
                position += 1
            }
            return value
        }

        mutating func skip(_ count: Int) -> Bool {
            guard position + count <= bytes.count * 8 else { return false }
            position += count
            return true
        }

        /// ue(v): leading zeros, a one, then as many bits more. Values past 2^31 mean a broken stream.
        mutating func readExpGolomb() -> Int? {
            var zeros = 0
            while true {
                guard let bit = read(1) else { return nil }
                if bit == 1 { break }
                zeros += 1
                guard zeros <= 31 else { return nil }
            }
            guard let rest = read(zeros) else { return nil }
            return (1 << zeros) - 1 + rest
        }
    }
}
