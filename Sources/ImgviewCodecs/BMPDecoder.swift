import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes Windows and OS/2 bitmaps, written here: no Debian library reads BMP alone, and
/// the format is a header and rows.
///
/// Reads 1-, 2-, 4- and 8-bit palette images, 16- and 32-bit images with default or explicit
/// colour masks (alpha included), 24-bit images, RLE8 and RLE4, bottom-up and top-down. As
/// browsers do, a 32-bit image whose alpha bytes are all zero is opaque, and pixels that RLE
/// skips are transparent. Rows that are missing at the end of a short file stay transparent
/// and come back with a warning. Rows go one at a time into a `RowDownscaler`, so memory
/// follows the preview, not the size the header declares.
public struct BMPDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let bitmap = try BMPHeader.read(bytes)
        // Before the downscaler, whose output may be the whole image.
        try request.admit(width: bitmap.width, height: bitmap.height)
        let factor = PixelReducer.factor(
            width: bitmap.width, height: bitmap.height, covering: request.minimumSize, beside: 0, within: request.maxDecodeBytes)
        // Bottom-up or top-down, rows come in order.
        var downscaler = RowDownscaler(sourceWidth: bitmap.width, sourceHeight: bitmap.height, factor: factor, order: .inOrder)
        let complete = try decodeRows(bytes, bitmap: bitmap, request: request) { y, row in downscaler.add(row: y, pixels: row) }
        let warning = complete ? nil : "truncated BMP; showing the part that could be decoded"
        return DecodedImage(header: header, pixels: downscaler.finish(), warning: warning)
    }

    /// Decodes the bitmap's rows, handing each to `row` as it is done (RGBA, full width, `y`
    /// counted from the top; rows the file leaves out are not handed over), and says whether
    /// every row was in the file. An icon's pictures are read through this too (`ICODecoder`).
    func decodeRows(
        _ bytes: Data, bitmap: BMPHeader, request: DecodeRequest, row: (_ y: Int, _ pixels: UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) -> Bool {
        let (width, height) = (bitmap.width, bitmap.height)
        try request.admit(width: width, height: height)
        if request.cancellation.isCancelled { throw .cancelled }
        // Zero is transparent: whatever the file does not cover shows the background.
        var line = [UInt8](repeating: 0, count: width * 4)
        let outcome: Result<BMPRows.Outcome, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            line.withUnsafeMutableBufferPointer { line in
                let rows = BMPRows(
                    bitmap: bitmap, file: raw.bindMemory(to: UInt8.self), line: line, cancellation: request.cancellation,
                    input: request.mappedInput)
                do throws(ImageDecodingError) {
                    return .success(
                        bitmap.compression == .none ? try rows.decodeUncompressed(row) : try rows.decodeRunLengths(row))
                } catch {
                    return .failure(error)
                }
            }
        }
        let result = try outcome.get()
        guard result.decodedAnything else { throw .truncated(.bmp) }
        return result.complete
    }
}

/// The row decoding of one bitmap, one row at a time through a buffer of one row.
private final class BMPRows {
    /// How far decoding got: whether any pixel came from the file, and whether all of them did.
    struct Outcome {
        var decodedAnything: Bool
        var complete: Bool
    }

    /// Where a colour channel sits in a packed pixel, and how to widen it to 8 bits.
    struct Channel {
        var mask: UInt32
        var shift: UInt32
        var bits: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            bits = UInt32((~(mask >> shift)).trailingZeroBitCount)
        }

        @inline(__always)
        func value(_ pixel: UInt32) -> UInt8 {
            // A mask with gaps counts only its lowest run of bits; the bits above it are dropped.
            guard bits > 0 else { return 0 }
            let raw = (pixel & mask) >> shift
            if bits >= 8 { return UInt8(truncatingIfNeeded: raw >> (bits - 8)) }
            let maximum = (UInt32(1) << bits) - 1
            return UInt8((min(raw, maximum) * 255 + maximum / 2) / maximum)
        }
    }

    let bitmap: BMPHeader
    let file: UnsafeBufferPointer<UInt8>
    /// One row of RGBA, `bitmap.width` pixels.
    let line: UnsafeMutableBufferPointer<UInt8>
    let cancellation: CancellationFlag
    /// The file's mapping, whose pages read so far are let go every 64 rows.
    let input: MappedFile?
    /// The row (from the top) the run-length runs have written on since the last one was handed over.
    private var dirtyRow: Int?

    init(
        bitmap: BMPHeader, file: UnsafeBufferPointer<UInt8>, line: UnsafeMutableBufferPointer<UInt8>, cancellation: CancellationFlag,
        input: MappedFile?
    ) {
        self.bitmap = bitmap
        self.file = file
        self.line = line
        self.cancellation = cancellation
        self.input = input
    }

    /// Rows of indices or packed colours, each padded to four bytes.
    func decodeUncompressed(_ row: (Int, UnsafeBufferPointer<UInt8>) -> Void) throws(ImageDecodingError) -> Outcome {
        let (width, height) = (bitmap.width, bitmap.height)
        let rowLength = bitmap.rowLength
        let channels = [bitmap.masks.red, bitmap.masks.green, bitmap.masks.blue, bitmap.masks.alpha].map(Channel.init)
        // An alpha channel that is zero everywhere is a padding byte, not transparency.
        let hasAlpha = bitmap.masks.alpha != 0 && anyAlpha(channels[3])
        var rowsRead = 0
        for fileRow in 0..<height {
            if fileRow % 64 == 63 {
                if cancellation.isCancelled { throw .cancelled }
                input?.releaseResidentPages()
            }
            let start = bitmap.pixelOffset + fileRow * rowLength
            guard start + (width * bitmap.bitsPerPixel + 7) / 8 <= file.count else { break }
            let y = bitmap.bottomUp ? height - 1 - fileRow : fileRow
            var out = 0
            switch bitmap.bitsPerPixel {
            case 24:
                for x in 0..<width {
                    let at = start + x * 3
                    put(out, file[at + 2], file[at + 1], file[at], 255)
                    out += 4
                }
            case 16, 32:
                let size = bitmap.bitsPerPixel / 8
                for x in 0..<width {
                    let value = packed(at: start + x * size, size: size)
                    let alpha = hasAlpha ? channels[3].value(value) : 255
                    put(out, channels[0].value(value), channels[1].value(value), channels[2].value(value), alpha)
                    out += 4
                }
            default:  // 1, 2, 4 or 8 bits of palette index, most significant first
                let bits = bitmap.bitsPerPixel
                let perByte = 8 / bits
                let indexMask = (1 << bits) - 1
                for x in 0..<width {
                    let byte = Int(file[start + x / perByte])
                    let index = byte >> (8 - bits * (x % perByte + 1)) & indexMask
                    putIndex(out, index)
                    out += 4
                }
            }
            row(y, UnsafeBufferPointer(line))
            rowsRead += 1
        }
        return Outcome(decodedAnything: rowsRead > 0, complete: rowsRead == height)
    }

    /// One 16- or 32-bit pixel, little-endian.
    @inline(__always)
    private func packed(at offset: Int, size: Int) -> UInt32 {
        var value = UInt32(file[offset]) | UInt32(file[offset + 1]) << 8
        if size == 4 { value |= UInt32(file[offset + 2]) << 16 | UInt32(file[offset + 3]) << 24 }
        return value
    }

    /// Whether any pixel in the file sets the alpha channel (read before the rows, which need to know).
    private func anyAlpha(_ alpha: Channel) -> Bool {
        let size = bitmap.bitsPerPixel / 8
        guard size == 2 || size == 4 else { return false }
        for fileRow in 0..<bitmap.height {
            let start = bitmap.pixelOffset + fileRow * bitmap.rowLength
            guard start + bitmap.width * size <= file.count else { break }
            if fileRow % 64 == 63 { input?.releaseResidentPages() }
            for x in 0..<bitmap.width where alpha.value(packed(at: start + x * size, size: size)) != 0 { return true }
        }
        return false
    }

    /// RLE8 or RLE4: runs of one index, literal runs, end-of-line, end-of-bitmap and jumps;
    /// always bottom-up.
    /// Rows only ever move up, so each is handed over when the runs leave it.
    func decodeRunLengths(_ emit: (Int, UnsafeBufferPointer<UInt8>) -> Void) throws(ImageDecodingError) -> Outcome {
        let outcome = try runLengths(emit)
        flush(emit)
        return outcome
    }

    private func runLengths(_ emit: (Int, UnsafeBufferPointer<UInt8>) -> Void) throws(ImageDecodingError) -> Outcome {
        let (width, height) = (bitmap.width, bitmap.height)
        let nibbles = bitmap.compression == .rle4
        var position = bitmap.pixelOffset
        var x = 0
        var row = 0  // counted from the bottom
        var wrote = false
        func pixel(_ index: Int) {
            if x < width, row < height {
                putIndex(x * 4, index)
                dirtyRow = height - 1 - row
                wrote = true
            }
            x += 1
        }
        func moveUp(_ rows: Int) {
            flush(emit)
            row += rows
        }
        while position + 1 < file.count {
            let (count, value) = (Int(file[position]), Int(file[position + 1]))
            position += 2
            if count > 0 {
                for step in 0..<count {
                    pixel(nibbles ? (step % 2 == 0 ? value >> 4 : value & 0xF) : value)
                    if x >= width { break }
                }
                continue
            }
            switch value {
            case 0:  // end of line
                moveUp(1)
                x = 0
                if row % 64 == 63 {
                    if cancellation.isCancelled { throw .cancelled }
                    input?.releaseResidentPages()
                }
            case 1:  // end of bitmap
                return Outcome(decodedAnything: wrote, complete: true)
            case 2:  // jump right and up
                guard position + 1 < file.count else { return Outcome(decodedAnything: wrote, complete: false) }
                x += Int(file[position])
                if file[position + 1] > 0 { moveUp(Int(file[position + 1])) }
                position += 2
            default:  // `value` literal indices, padded to an even number of bytes
                let length = nibbles ? (value + 1) / 2 : value
                guard position + length <= file.count else { return Outcome(decodedAnything: wrote, complete: false) }
                for step in 0..<value {
                    let byte = Int(file[position + (nibbles ? step / 2 : step)])
                    pixel(nibbles ? (step % 2 == 0 ? byte >> 4 : byte & 0xF) : byte)
                }
                position += length + length % 2
            }
            if row >= height { return Outcome(decodedAnything: wrote, complete: true) }
        }
        return Outcome(decodedAnything: wrote, complete: false)
    }

    /// Hands the row the runs wrote on, if any, and clears the buffer for the next.
    private func flush(_ emit: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        guard let y = dirtyRow else { return }
        emit(y, UnsafeBufferPointer(line))
        for index in line.indices { line[index] = 0 }
        dirtyRow = nil
    }

    @inline(__always)
    private func put(_ offset: Int, _ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8) {
        line[offset] = red
        line[offset + 1] = green
        line[offset + 2] = blue
        line[offset + 3] = alpha
    }

    @inline(__always)
    private func putIndex(_ offset: Int, _ index: Int) {
        let entry = index * 4
        put(offset, bitmap.palette[entry], bitmap.palette[entry + 1], bitmap.palette[entry + 2], 255)
    }
}
