import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Whether an image file ends where its own structure says it ends.
///
/// A body whose length the server did not announce (no Content-Length, or a compressed one) ends
/// when the connection closes, which is also what a server that dies mid-way looks like. Such a
/// body is only taken as whole when the image's structure is: a JPEG's segments and scans lead to
/// its EOI marker, a PNG's chunks to IEND, a GIF's blocks to its trailer, a RIFF (WebP) file is as
/// long as its header says, a BMP as long as its file header (or its pixel rows) say, an ISO media
/// file (AVIF, HEIC, a JPEG XL container) has its boxes whole and every item's data where `iloc`
/// puts it, an icon has every picture its directory lists, a QOI file has every pixel and its end
/// marker. TIFF, SVG and a bare JPEG XL codestream say nowhere in one place where they end: `unknown`.
public enum ImageCompleteness {
    public enum Verdict: Sendable, Equatable {
        case complete
        /// The file ends before its structure does.
        case truncated
        /// The structure does not say where the file ends (a BMP without sizes), or is not what the
        /// format's decoder would read anyway: the decoder judges it.
        case unknown
    }

    /// The verdict for the file at `url`, read as `format`, `windowSize` bytes at a time.
    public static func verdict(fileAt url: URL, format: ImageFormat, windowSize: Int = 1 << 20) -> Verdict {
        guard let reader = FileWindow(path: url.path, windowSize: windowSize) else { return .unknown }
        return verdict(reader, format: format)
    }

    /// The verdict for bytes in memory, read as `format`.
    public static func verdict(_ bytes: [UInt8], format: ImageFormat) -> Verdict {
        verdict(ByteWindow(bytes: bytes), format: format)
    }

    private static func verdict(_ bytes: some RandomAccessBytes, format: ImageFormat) -> Verdict {
        switch format {
        case .jpeg: jpeg(bytes)
        case .png: png(bytes)
        case .gif: gif(bytes)
        case .webp: riff(bytes)
        case .bmp: bmp(bytes)
        case .avif, .heic: isoMedia(bytes)
        case .jxl: bytes.byte(at: 0) == 0xFF ? .unknown : isoMedia(bytes)  // FF 0A: a bare codestream
        case .ico: icon(bytes)
        case .qoi: qoi(bytes)
        case .tiff, .svg: .unknown
        }
    }

    // MARK: Formats

    /// Segment by segment from SOI; after each SOS, through the entropy-coded data to the next
    /// marker (a 0xFF not followed by 0x00, a restart marker or another 0xFF); complete at EOI.
    /// APPn segments are skipped whole, so a thumbnail's own EOI inside EXIF does not count.
    private static func jpeg(_ bytes: some RandomAccessBytes) -> Verdict {
        var position = 2
        while true {
            guard let first = bytes.byte(at: position) else { return .truncated }
            guard first == 0xFF else {
                // Stray bytes before a marker (libjpeg warns and carries on): find the next one.
                guard let next = bytes.firstIndex(of: 0xFF, from: position) else { return .truncated }
                position = next
                continue
            }
            var markerAt = position + 1
            while bytes.byte(at: markerAt) == 0xFF { markerAt += 1 }
            guard let marker = bytes.byte(at: markerAt) else { return .truncated }
            position = markerAt + 1
            switch marker {
            case 0xD9:
                return .complete
            case 0x01, 0xD0...0xD8:
                continue  // no length: TEM, RSTn, SOI
            default:
                guard let length = bytes.bigEndian16(at: position), length >= 2 else { return .truncated }
                position += length
                guard position <= bytes.count else { return .truncated }
                if marker == 0xDA {
                    guard let next = nextMarkerAfterScan(bytes, from: position) else { return .truncated }
                    position = next
                }
            }
        }
    }

    /// The offset of the 0xFF that starts the first marker after entropy-coded data from `start`.
    private static func nextMarkerAfterScan(_ bytes: some RandomAccessBytes, from start: Int) -> Int? {
        var position = start
        while let found = bytes.firstIndex(of: 0xFF, from: position) {
            var after = found + 1
            while bytes.byte(at: after) == 0xFF { after += 1 }
            guard let next = bytes.byte(at: after) else { return nil }
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                position = after + 1
            } else {
                return after - 1
            }
        }
        return nil
    }

    /// Chunk by chunk after the signature, to an IEND chunk that is there whole.
    private static func png(_ bytes: some RandomAccessBytes) -> Verdict {
        var position = 8
        while let length = bytes.bigEndian32(at: position), let type = bytes.bigEndian32(at: position + 4) {
            let end = position + 12 + length
            guard end <= bytes.count else { return .truncated }
            if type == 0x4945_4E44 { return .complete }  // "IEND"
            position = end
        }
        return .truncated
    }

    /// Block by block after the header and global colour table, to the trailer (0x3B).
    private static func gif(_ bytes: some RandomAccessBytes) -> Verdict {
        switch GIFBlocks.walk(byte: bytes.byte(at:)) {
        case .trailer: .complete
        case .cut: .truncated
        case .stray: .unknown  // not a GIF block: the decoder will say what is wrong
        }
    }

    /// A RIFF file (WebP) is 8 bytes of header and as many more as its size field says.
    private static func riff(_ bytes: some RandomAccessBytes) -> Verdict {
        guard let size = bytes.littleEndian32(at: 4) else { return .truncated }
        return bytes.count >= 8 + size ? .complete : .truncated
    }

    /// A BMP is as long as its file header says or, when that is 0, as its uncompressed pixel rows need.
    private static func bmp(_ bytes: some RandomAccessBytes) -> Verdict {
        guard let declared = bytes.littleEndian32(at: 2), let offset = bytes.littleEndian32(at: 10) else { return .truncated }
        if declared >= 26 { return bytes.count >= declared ? .complete : .truncated }
        guard let headerSize = bytes.littleEndian32(at: 14), let width = bytes.littleEndian32(at: 18),
            let height = bytes.littleEndian32(at: 22), let bitsPerPixel = bytes.littleEndian16(at: 28),
            let compression = bytes.littleEndian32(at: 30)
        else { return .truncated }
        // Compressed rows (RLE, JPEG, PNG inside) have no length to check; old 12-byte headers are rare.
        guard headerSize >= 40, compression == 0 || compression == 3 else { return .unknown }
        let rows = Int(Int32(truncatingIfNeeded: UInt32(height)).magnitude)
        let rowBytes = (Int(Int32(truncatingIfNeeded: UInt32(width)).magnitude) * bitsPerPixel + 31) / 32 * 4
        let (pixels, overflow) = rowBytes.multipliedReportingOverflow(by: rows)
        guard !overflow else { return .unknown }
        return bytes.count >= offset + pixels ? .complete : .truncated
    }

    /// The most of a `meta` box read into memory to find where its items' data lies.
    static let maxMetaBytes = 16 << 20

    /// Box after box from the start, each there whole, until the data ends or what follows does not
    /// start like a box (bytes after the file). Complete once a box that says what the file holds
    /// was there (`meta`, `moov`; for JPEG XL, `jxlc` or the last `jxlp`) and every item's data
    /// that `meta`'s `iloc` places in the file is there too.
    private static func isoMedia(_ bytes: some RandomAccessBytes) -> Verdict {
        var position = 0
        var described = false
        var dataEnd = 0
        while position < bytes.count {
            let header = bytes.bytes(at: position, count: 16)
            // A header cut short, or a few bytes after the last box.
            guard header.count >= 8 else { break }
            guard header[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }) else {
                if described { break }
                return .unknown  // not a box before anything said what the file holds: the decoder judges
            }
            guard let (size, headerLength) = ISOMediaHeader.boxSize(header: header[...], available: bytes.count - position) else {
                return header.count < 16 ? .truncated : .unknown
            }
            guard position + size <= bytes.count else { return .truncated }
            switch String(decoding: header[4..<8], as: UTF8.self) {
            case "meta":
                guard size <= maxMetaBytes, let reach = ISOMediaHeader.itemDataEnd(meta: bytes.bytes(at: position, count: size)) else {
                    return .unknown
                }
                dataEnd = max(dataEnd, reach)
                described = true
            case "moov", "jxlc":
                described = true
            case "jxlp":
                // A part of the codestream: its index first, the top bit set on the last part.
                if let index = bytes.bigEndian32(at: position + headerLength), index & 0x8000_0000 != 0 { described = true }
            default:
                break
            }
            position += size
        }
        return described && dataEnd <= bytes.count ? .complete : .truncated
    }

    /// An icon directory: every picture it lists is as long as its entry says, where it says.
    private static func icon(_ bytes: some RandomAccessBytes) -> Verdict {
        guard let count = bytes.littleEndian16(at: 4) else { return .truncated }
        var end = 6 + 16 * count
        for entry in stride(from: 6, to: 6 + 16 * count, by: 16) {
            guard let size = bytes.littleEndian32(at: entry + 8), let offset = bytes.littleEndian32(at: entry + 12) else {
                return .truncated
            }
            end = max(end, offset + size)
        }
        return bytes.count >= end ? .complete : .truncated
    }

    /// QOI: chunk by chunk to the width × height pixels the header says, then the 8-byte end marker.
    private static func qoi(_ bytes: some RandomAccessBytes) -> Verdict {
        guard let width = bytes.bigEndian32(at: 4), let height = bytes.bigEndian32(at: 8) else { return .truncated }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow else { return .unknown }
        var position = 14
        var decoded = 0
        while decoded < pixels {
            guard let tag = bytes.byte(at: position) else { return .truncated }
            switch tag {
            case 0xFE: position += 4  // RGB
            case 0xFF: position += 5  // RGBA
            case 0x80...0xBF: position += 2  // LUMA
            default: position += 1  // INDEX, DIFF, RUN
            }
            decoded += tag >= 0xC0 && tag < 0xFE ? Int(tag & 0x3F) + 1 : 1
        }
        return bytes.count >= position + 8 ? .complete : .truncated
    }
}

/// Bytes read by offset, from memory or a file; nil past the end.
private protocol RandomAccessBytes {
    var count: Int { get }
    func byte(at offset: Int) -> UInt8?
    /// Up to `count` bytes from `offset`, fewer at the end.
    func bytes(at offset: Int, count: Int) -> [UInt8]
    /// The offset of the first `value` at or after `start`.
    func firstIndex(of value: UInt8, from start: Int) -> Int?
}

extension RandomAccessBytes {
    /// The unsigned integer in the `size` bytes at `offset`, most significant first or last.
    func integer(at offset: Int, size: Int, bigEndian: Bool) -> Int? {
        var value = 0
        for index in 0..<size {
            guard let byte = byte(at: offset + (bigEndian ? index : size - 1 - index)) else { return nil }
            value = value << 8 | Int(byte)
        }
        return value
    }

    func bigEndian16(at offset: Int) -> Int? { integer(at: offset, size: 2, bigEndian: true) }
    func bigEndian32(at offset: Int) -> Int? { integer(at: offset, size: 4, bigEndian: true) }
    func littleEndian16(at offset: Int) -> Int? { integer(at: offset, size: 2, bigEndian: false) }
    func littleEndian32(at offset: Int) -> Int? { integer(at: offset, size: 4, bigEndian: false) }
}

private struct ByteWindow: RandomAccessBytes {
    package let bytes: [UInt8]
    var count: Int { bytes.count }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func firstIndex(of value: UInt8, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes[max(0, start)...].firstIndex(of: value)
    }

    package func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }
}

/// A file read through a window that moves to wherever the last read was, so a walk that mostly
/// goes forward reads each byte about once, whatever the file's size.
private final class FileWindow: RandomAccessBytes {
    private let windowSize: Int
    private let descriptor: Int32
    let count: Int
    private var window: [UInt8] = []
    private var windowStart = 0

    init?(path: String, windowSize: Int) {
        self.windowSize = max(16, windowSize)
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        count = Int(status.st_size)
    }

    deinit {
        close(descriptor)
    }

    func byte(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        if offset < windowStart || offset >= windowStart + window.count { load(at: offset) }
        let index = offset - windowStart
        return index < window.count ? window[index] : nil
    }

    func firstIndex(of value: UInt8, from start: Int) -> Int? {
        var position = max(0, start)
        while position < count {
            guard byte(at: position) != nil else { return nil }
            let index = position - windowStart
            let found = window.withUnsafeBufferPointer { buffer -> Int? in
                let base = buffer.baseAddress! + index
                guard let hit = memchr(base, Int32(value), buffer.count - index) else { return nil }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(buffer.baseAddress!)
            }
            if let found { return windowStart + found }
            position = windowStart + window.count
        }
        return nil
    }

    package func bytes(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, offset < self.count else { return [] }
        return PositionalRead.bytes(descriptor, at: offset, count: min(count, self.count - offset))
    }

    private func load(at offset: Int) {
        window = PositionalRead.bytes(descriptor, at: offset, count: min(windowSize, count - offset))
        windowStart = offset
    }
}
