import Foundation
import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An image's upright pixel size, read from its header alone, without a codec.
///
/// The disk cache records it with each entry so that `cache ls` can show it without
/// decoding anything. JPEG (SOFn), PNG (IHDR), GIF, BMP, WebP, AVIF and HEIC (the primary
/// item's `ispe`), TIFF (its first page), QOI, ICO and JPEG XL headers are understood; SVG has no pixel
/// size. EXIF orientation is applied for JPEG, PNG and TIFF, and `irot` for AVIF and HEIC, as `info` does. Every offset comes from the
/// file, so every read is bounds-checked, and anything malformed means "unknown", never a crash.
public struct ImageDimensions: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// How much of a file is read in one go: the header and, in practice, any EXIF block (at most 64 KiB in a JPEG).
    static let prefixLength = 128 * 1024

    /// The size of the image in `bytes` (a whole file, or at least its first bytes), nil when not understood.
    public static func read(_ bytes: [UInt8]) -> ImageDimensions? {
        read(prefix: Array(bytes.prefix(prefixLength))) { offset, count in
            guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// The size of the image in the file at `url`, reading its first bytes and, for a JPEG whose
    /// metadata runs past them, the headers of the segments that follow.
    public static func read(fileAt url: URL) -> ImageDimensions? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return read(descriptor: descriptor)
    }

    /// The size of the image in `data`, copying only the bytes the header needs.
    public static func read(_ data: Data) -> ImageDimensions? {
        let prefix = [UInt8](data.prefix(prefixLength))
        return read(prefix: prefix) { offset, count in
            guard offset >= 0, offset < data.count, count > 0 else { return [] }
            let start = data.startIndex + offset
            return [UInt8](data[start..<(start + min(count, data.count - offset))])
        }
    }

    /// The size of the image in the open file `descriptor`, read with `pread` from its start.
    package static func read(descriptor: Int32) -> ImageDimensions? {
        func readAt(_ offset: Int, _ count: Int) -> [UInt8] {
            PositionalRead.bytes(descriptor, at: offset, count: count)
        }
        let prefix = readAt(0, prefixLength)
        return read(prefix: prefix) { offset, count in
            if offset >= 0, offset + count <= prefix.count { return Array(prefix[offset..<offset + count]) }
            return readAt(offset, count)
        }
    }

    private static func read(prefix: [UInt8], readAt: (_ offset: Int, _ count: Int) -> [UInt8]) -> ImageDimensions? {
        guard let format = ImageFormat.sniff(prefix) else { return nil }
        let stored: (width: Int, height: Int)?
        var turned = false
        switch format {
        case .jpeg: stored = jpegSize(readAt)
        case .png: stored = pngSize(prefix)
        case .gif: stored = gifSize(prefix)
        case .bmp: stored = bmpSize(prefix)
        case .webp: stored = webpSize(prefix)
        case .avif, .heic:
            let item = ISOMediaHeader.primaryImageSize(prefix)
            stored = item.map { ($0.width, $0.height) }
            turned = item?.quarterTurned ?? false
        case .tiff:
            let page = TIFFDirectories.read(readAt)?.pages.first
            stored = page.map { ($0.width, $0.height) }
            turned = page?.orientation.swapsAxes ?? false
        case .qoi: stored = (bigEndian32(prefix, 4), bigEndian32(prefix, 8))
        case .ico: stored = IconDirectory.read(readAt)?.largest.map { ($0.width, $0.height) }
        case .jxl: stored = JPEGXLHeader.size(prefix)
        case .svg: stored = nil  // lengths with units, or only a viewBox: no pixel size to tell
        }
        guard let stored, stored.width > 0, stored.height > 0 else { return nil }
        if [.jpeg, .png].contains(format) { turned = ExifReader.orientation(in: prefix).swapsAxes }
        return turned
            ? ImageDimensions(width: stored.height, height: stored.width) : ImageDimensions(width: stored.width, height: stored.height)
    }

    // MARK: Formats

    /// Walks the segments to the first start-of-frame marker, which holds the size.
    private static func jpegSize(_ readAt: (_ offset: Int, _ count: Int) -> [UInt8]) -> (width: Int, height: Int)? {
        var offset = 2
        // Each step moves forward, so this ends at the end of the file; the bound is for safety only.
        for _ in 0..<100_000 {
            let head = readAt(offset, 4)
            guard head.count >= 2, head[0] == 0xFF else { return nil }
            let marker = head[1]
            if marker == 0xFF {  // fill byte
                offset += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {  // no length
                offset += 2
                continue
            }
            // End of image or start of scan before any frame header: not a usable JPEG.
            guard marker != 0xD9, marker != 0xDA, head.count == 4 else { return nil }
            let length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 2 else { return nil }
            // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let frame = readAt(offset + 4, 5)  // precision, height, width
                guard frame.count == 5 else { return nil }
                return (Int(frame[3]) << 8 | Int(frame[4]), Int(frame[1]) << 8 | Int(frame[2]))
            }
            offset += 2 + length
        }
        return nil
    }

    /// IHDR is always the first chunk: length 13, then width and height, big-endian.
    private static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        let width = bigEndian32(bytes, 16)
        let height = bigEndian32(bytes, 20)
        // The format caps both at 2^31 - 1.
        guard width <= Int(Int32.max), height <= Int(Int32.max) else { return nil }
        return (width, height)
    }

    /// The logical screen size, little-endian, after the six-byte signature.
    private static func gifSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 10 else { return nil }
        return (littleEndian(bytes, 6, count: 2), littleEndian(bytes, 8, count: 2))
    }

    /// BITMAPCOREHEADER (16-bit sizes) or a later header (signed 32-bit; a negative height means top-down).
    private static func bmpSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 18 else { return nil }
        let headerSize = littleEndian(bytes, 14, count: 4)
        if headerSize == 12 {
            guard bytes.count >= 22 else { return nil }
            return (littleEndian(bytes, 18, count: 2), littleEndian(bytes, 20, count: 2))
        }
        guard headerSize >= 40, bytes.count >= 26 else { return nil }
        let width = Int(Int32(bitPattern: UInt32(littleEndian(bytes, 18, count: 4))))
        let height = Int(Int32(bitPattern: UInt32(littleEndian(bytes, 22, count: 4))))
        guard height != Int(Int32.min) else { return nil }
        return (width, abs(height))
    }

    /// The first chunk after `RIFF....WEBP`: lossy (VP8), lossless (VP8L) or extended (VP8X).
    private static func webpSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 30 else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8 ":
            // A key frame: 3-byte frame tag, start code 9D 01 2A, then 14-bit sizes.
            guard Array(bytes[23..<26]) == [0x9D, 0x01, 0x2A] else { return nil }
            return (littleEndian(bytes, 26, count: 2) & 0x3FFF, littleEndian(bytes, 28, count: 2) & 0x3FFF)
        case "VP8L":
            // Signature 0x2F, then width - 1 and height - 1 in 14 bits each.
            guard bytes[20] == 0x2F else { return nil }
            let bits = littleEndian(bytes, 21, count: 4)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            // Canvas width - 1 and height - 1, 24 bits each.
            return (littleEndian(bytes, 24, count: 3) + 1, littleEndian(bytes, 27, count: 3) + 1)
        default:
            return nil
        }
    }

    static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> Int {
        (offset..<offset + 4).reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    static func littleEndian(_ bytes: [UInt8], _ offset: Int, count: Int) -> Int {
        (offset..<offset + count).reversed().reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }
}
