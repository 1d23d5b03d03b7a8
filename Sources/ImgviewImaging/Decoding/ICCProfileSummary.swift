import ImgviewSupport

/// What an ICC profile says of itself, read in Swift so that `info` names a profile without
/// opening Little CMS: its colour space, its red, green and blue colorants and its description.
///
/// A profile is named by its colorants, not its text: the same Adobe RGB is "Compatible with
/// Adobe RGB (1998)" in Debian's files and the Display P3 libjxl writes is "RGB_D65_DCI_Per_SRG".
public struct ICCProfileSummary: Sendable, Equatable {
    /// The space the profile's device values are in.
    public enum Space: Sendable, Equatable {
        case rgb, gray, cmyk, other
    }

    /// A CIE XYZ colour (D50, as profiles store their colorants).
    public struct XYZ: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var z: Double
    }

    public var space: Space
    /// The rXYZ, gXYZ and bXYZ tags, when the profile is a matrix/shaper one that has them.
    public var colorants: [XYZ]?
    /// The `desc` tag's text (v2 `desc` or v4 `mluc`, English first), sanitised.
    public var description: String?

    /// Reads the 128-byte header and the tag table; nil when `bytes` is no ICC profile (no
    /// `acsp` signature, or a tag table past its end).
    public init?(_ profile: [UInt8]) {
        let bytes = ArrayBytes(profile)
        guard bytes.count >= 132, Self.text(bytes, 36) == "acsp" else { return nil }
        space =
            switch Self.text(bytes, 16) {
            case "RGB ": .rgb
            case "GRAY": .gray
            case "CMYK": .cmyk
            default: .other
            }
        let count = bytes.bigEndian32(at: 128) ?? 0
        guard count <= 1024, 132 + count * 12 <= bytes.count else { return nil }
        var tags: [String: Range<Int>] = [:]
        for index in 0..<count {
            let entry = 132 + index * 12
            let offset = bytes.bigEndian32(at: entry + 4) ?? 0
            let size = bytes.bigEndian32(at: entry + 8) ?? 0
            guard offset <= bytes.count, size <= bytes.count - offset else { continue }
            tags[Self.text(bytes, entry)] = offset..<(offset + size)
        }
        let xyz = ["rXYZ", "gXYZ", "bXYZ"].compactMap { tags[$0].flatMap { Self.xyz(bytes, $0) } }
        colorants = xyz.count == 3 ? xyz : nil
        description = tags["desc"].flatMap { Self.description(bytes, $0) }
    }

    /// The colorants of the spaces people name (D50-adapted, as a profile stores them): sRGB,
    /// Display P3, Adobe RGB (1998) and BT.2020, the red, green and blue columns.
    static let knownSpaces: [(name: String, colorants: [(Double, Double, Double)])] = [
        ("sRGB", [(0.4361, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7141)]),
        ("Display P3", [(0.5151, 0.2412, -0.0011), (0.2919, 0.6922, 0.0419), (0.1572, 0.0666, 0.7841)]),
        ("Adobe RGB (1998)", [(0.6097, 0.3111, 0.0195), (0.2053, 0.6257, 0.0609), (0.1492, 0.0632, 0.7446)]),
        ("BT.2020", [(0.6735, 0.2790, -0.0019), (0.1651, 0.6753, 0.0300), (0.1256, 0.0457, 0.7968)]),
    ]

    /// "Display P3" when the colorants are a known space's (within 0.003), else the description
    /// (at most 48 characters), else what kind of profile it is.
    public var name: String {
        if let colorants, space == .rgb,
            let known = Self.knownSpaces.first(where: { known in
                zip(known.colorants, colorants).allSatisfy {
                    abs($0.0 - $1.x) < 0.003 && abs($0.1 - $1.y) < 0.003 && abs($0.2 - $1.z) < 0.003
                }
            })
        {
            return known.name
        }
        if let description, !description.isEmpty { return description }
        return switch space {
        case .rgb, .other: "ICC profile"
        case .gray: "grey ICC profile"
        case .cmyk: "CMYK ICC profile"
        }
    }

    /// The four-character signature at `offset`.
    private static func text(_ bytes: ArrayBytes, _ offset: Int) -> String {
        String(decoding: bytes.bytes(at: offset, count: 4), as: UTF8.self)
    }

    /// An `XYZ ` tag's first value (three s15Fixed16 numbers).
    private static func xyz(_ bytes: ArrayBytes, _ range: Range<Int>) -> XYZ? {
        guard range.count >= 20, text(bytes, range.lowerBound) == "XYZ " else { return nil }
        let fixed = { (offset: Int) in
            Double(Int32(bitPattern: UInt32(bytes.bigEndian32(at: range.lowerBound + offset) ?? 0))) / 65536
        }
        return XYZ(x: fixed(8), y: fixed(12), z: fixed(16))
    }

    /// A `desc` (ICC v2: a counted ASCII string) or `mluc` (v4: UTF-16BE records, English first) tag's text.
    private static func description(_ bytes: ArrayBytes, _ range: Range<Int>) -> String? {
        guard range.count >= 12 else { return nil }
        var text: String?
        switch Self.text(bytes, range.lowerBound) {
        case "desc":
            let length = min(bytes.bigEndian32(at: range.lowerBound + 8) ?? 0, range.count - 12)
            text = String(decoding: bytes.bytes(at: range.lowerBound + 12, count: length).prefix { $0 != 0 }, as: UTF8.self)
        case "mluc":
            let count = bytes.bigEndian32(at: range.lowerBound + 8) ?? 0
            guard count >= 1, range.count >= 16 + 12 * min(count, 64) else { return nil }
            let records = (0..<min(count, 64)).map { range.lowerBound + 16 + $0 * 12 }
            let record = records.first { Self.text(bytes, $0).hasPrefix("en") } ?? records[0]
            let length = bytes.bigEndian32(at: record + 4) ?? 0
            let offset = bytes.bigEndian32(at: record + 8) ?? 0
            guard offset <= range.count, length <= range.count - offset else { return nil }
            let start = range.lowerBound + offset
            let units = stride(from: start, to: start + length - 1, by: 2).map { UInt16(bytes.bigEndian16(at: $0) ?? 0) }
            text = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
        default:
            return nil
        }
        let cleaned = TerminalText.sanitized(text ?? "").trimmingWhitespace()
        return cleaned.isEmpty ? nil : String(cleaned.prefix(48))
    }
}
