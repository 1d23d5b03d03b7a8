extension ISOMediaHeader {
    /// The colour space of an AVIF's or HEIC's primary image, from its `colr` property: an ICC
    /// profile (`prof`, `rICC`) or code points (`nclx`); nil when it has none or it is unreadable.
    public static func primaryColorProfile(_ bytes: [UInt8]) -> EmbeddedColorProfile? {
        guard let range = primaryImageSize(bytes)?.colorDescription, range.count >= 4 else { return nil }
        let kind = String(decoding: bytes[range.lowerBound..<(range.lowerBound + 4)], as: UTF8.self)
        switch kind {
        case "prof", "rICC":
            return range.count > 4 ? .icc(Array(bytes[(range.lowerBound + 4)..<range.upperBound])) : nil
        case "nclx":
            guard range.count >= 11 else { return nil }
            let number = { (offset: Int) in ArrayBytes(bytes).bigEndian16(at: range.lowerBound + offset) ?? 0 }
            return .cicp(primaries: number(4), transfer: number(6), matrix: number(8), fullRange: bytes[range.lowerBound + 10] & 0x80 != 0)
        default:
            return nil
        }
    }
}
