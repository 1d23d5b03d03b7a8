import Foundation

/// Whether an image file ends where its own structure says it ends.
///
/// A body whose length the server did not announce (no Content-Length, or a compressed one) ends
/// when the connection closes, which is also what a server that dies mid-way looks like. Such a
/// body is only taken as whole when the image's structure is: a JPEG's segments and scans lead to
/// its EOI marker, a PNG's chunks to IEND, a GIF's blocks to its trailer, a RIFF (WebP) file is as
/// long as its header says, a BMP as long as its file header (or its pixel rows) say.
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
        guard let flags = bytes.byte(at: 10) else { return .truncated }
        var position = 13 + colorTableSize(flags)
        while let introducer = bytes.byte(at: position) {
            switch introducer {
            case 0x3B:
                return .complete
            case 0x21:
                // Extension: a label, then sub-blocks.
                guard let end = endOfSubBlocks(bytes, from: position + 2) else { return .truncated }
                position = end
            case 0x2C:
                // Image: a 9-byte descriptor, an optional local colour table, the LZW code size, sub-blocks.
                guard let imageFlags = bytes.byte(at: position + 9) else { return .truncated }
                guard let end = endOfSubBlocks(bytes, from: position + 10 + colorTableSize(imageFlags) + 1) else { return .truncated }
                position = end
            default:
                // Not a GIF block: the decoder will say what is wrong.
                return .unknown
            }
        }
        return .truncated
    }

    private static func colorTableSize(_ flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }

    /// The offset just past the zero-length block that ends the sub-blocks starting at `start`.
    private static func endOfSubBlocks(_ bytes: some RandomAccessBytes, from start: Int) -> Int? {
        var position = start
        while let size = bytes.byte(at: position) {
            position += 1 + Int(size)
            if size == 0 { return position }
        }
        return nil
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
}

/// Bytes read by offset, from memory or a file; nil past the end.
private protocol RandomAccessBytes {
    var count: Int { get }
    func byte(at offset: Int) -> UInt8?
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
    let bytes: [UInt8]
    var count: Int { bytes.count }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func firstIndex(of value: UInt8, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes[max(0, start)...].firstIndex(of: value)
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

    private func load(at offset: Int) {
        window = PositionalRead.bytes(descriptor, at: offset, count: min(windowSize, count - offset))
        windowStart = offset
    }
}
