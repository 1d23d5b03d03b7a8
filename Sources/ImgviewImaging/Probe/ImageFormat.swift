/// An image file format, told from the file's first bytes, never from its name or content type.
///
/// Every case is an image `get`, the cache and `serve` keep, and one imgview decodes.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    case gif
    case webp
    case avif
    case bmp
    case tiff
    case heic
    case jxl
    case svg
    case ico
    case qoi

    /// How many leading bytes `sniff` may look at: an SVG's root element can follow an XML
    /// declaration, a comment and a DOCTYPE, and an ISO media file lists its brands after the first 16.
    public static let sniffLength = 1024

    /// The format whose signature `bytes` start with, or nil when they are not a known image.
    ///
    /// Looks at the first `sniffLength` bytes at most; fewer are enough for every format but
    /// SVG and the ISO media brands (AVIF, HEIC).
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        let head = Array(bytes.prefix(sniffLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && head[offset..<offset + signature.count].elementsEqual(signature)
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("BM".utf8)) && isBitmapHeader(head) { return .bmp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }  // BigTIFF
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if starts(Array("qoif".utf8)) && head.count >= 14 { return .qoi }
        if starts(Array("ftyp".utf8), at: 4) { return isoMediaFormat(head) }
        if (starts([0, 0, 1, 0]) || starts([0, 0, 2, 0])) && isIconDirectory(head) { return .ico }
        if isSVG(head) { return .svg }
        return nil
    }

    /// The MIME type a server should send for the format.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        case .heic: "image/heic"
        case .jxl: "image/jxl"
        case .svg: "image/svg+xml"
        case .ico: "image/vnd.microsoft.icon"
        case .qoi: "image/qoi"
        }
    }

    /// The usual file name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tif"
        default: rawValue
        }
    }

    /// The name users know the format by.
    public var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .avif: "AVIF"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        case .heic: "HEIC"
        case .jxl: "JPEG XL"
        case .svg: "SVG"
        case .ico: "ICO"
        case .qoi: "QOI"
        }
    }

    // MARK: Signatures that need more than a magic number

    /// "BM" is also how text starts ("BMW…"): the info header that follows must have a known size.
    private static func isBitmapHeader(_ head: [UInt8]) -> Bool {
        guard let size = ArrayBytes(head).littleEndian32(at: 14) else { return false }
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(size)
    }

    /// An ISO media file (`ftyp` box): AVIF when any brand says so, else HEIC for the HEIF brands.
    private static func isoMediaFormat(_ head: [UInt8]) -> ImageFormat? {
        guard head.count >= 12, let boxSize = ArrayBytes(head).bigEndian32(at: 0) else { return nil }
        // The major brand (8..<12), the minor version (12..<16), then compatible brands to the box's end.
        var brands = [Array(head[8..<12])]
        var offset = 16
        while offset + 4 <= min(boxSize, head.count) {
            brands.append(Array(head[offset..<offset + 4]))
            offset += 4
        }
        let names = Set(brands.map { String(decoding: $0, as: UTF8.self) })
        if !names.isDisjoint(with: ["avif", "avis"]) { return .avif }
        if !names.isDisjoint(with: ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1"]) { return .heic }
        return nil
    }

    /// An icon or cursor directory: reserved 0, type 1 or 2, at least one entry whose reserved byte
    /// is 0 and whose picture starts after the directory; an icon's planes are 0 or 1 (a cursor
    /// keeps its hotspot there).
    private static func isIconDirectory(_ head: [UInt8]) -> Bool {
        let reader = ArrayBytes(head)
        guard head.count >= 22, let count = reader.littleEndian16(at: 4), let planes = reader.littleEndian16(at: 10),
            let offset = reader.littleEndian32(at: 18)
        else { return false }
        return count > 0 && head[9] == 0 && (head[2] == 2 || planes <= 1) && offset >= 6 + 16 * count
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// SVG: after an optional byte-order mark, whitespace, an XML declaration, comments and a
    /// DOCTYPE, the first element is `<svg`. An HTML page with an inline SVG is not an image.
    private static func isSVG(_ head: [UInt8]) -> Bool {
        var index = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skipSpace() {
            while index < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[index]) { index += 1 }
        }
        func at(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return head.count >= index + bytes.count
                && zip(head[index..<index + bytes.count], bytes).allSatisfy { lowercased($0) == lowercased($1) }
        }
        /// Moves past the next `terminator`; false when the prefix ends first.
        func skip(past terminator: String) -> Bool {
            let bytes = Array(terminator.utf8)
            while index + bytes.count <= head.count {
                if head[index..<index + bytes.count].elementsEqual(bytes) {
                    index += bytes.count
                    return true
                }
                index += 1
            }
            return false
        }
        while true {
            skipSpace()
            if at("<?") {
                guard skip(past: "?>") else { return false }
            } else if at("<!--") {
                guard skip(past: "-->") else { return false }
            } else if at("<!DOCTYPE") {
                // An internal subset in brackets may hold '>' of its own.
                let start = index
                guard skip(past: ">") else { return false }
                if head[start..<index].contains(UInt8(ascii: "[")) {
                    index = start
                    guard skip(past: "]"), skip(past: ">") else { return false }
                }
            } else {
                guard at("<svg"), index + 4 < head.count else { return false }
                return [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(head[index + 4])
            }
        }
    }
}
