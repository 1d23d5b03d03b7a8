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
/// and come back with a warning. The full-size image is reduced to the requested scale.
public struct BMPDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let bitmap = try BMPHeader.read(bytes)
        let decoded = try fullSizePixels(bytes, bitmap: bitmap, request: request)
        let factor = PixelReducer.factor(width: bitmap.width, height: bitmap.height, covering: request.minimumSize)
        let reduced = decoded.pixels.withUnsafeBufferPointer {
            PixelReducer.reduce($0, width: bitmap.width, height: bitmap.height, factor: factor)
        }
        let warning = decoded.complete ? nil : "truncated BMP; showing the part that could be decoded"
        return DecodedImage(header: header, pixels: reduced, warning: warning)
    }

    /// The bitmap's pixels at full size (RGBA, rows top first), and whether every row was in the
    /// file; an icon's pictures are read through this too (`ICODecoder`).
    func fullSizePixels(
        _ bytes: Data, bitmap: BMPHeader, request: DecodeRequest
    ) throws(ImageDecodingError) -> (pixels: [UInt8], complete: Bool) {
        let (width, height) = (bitmap.width, bitmap.height)
        guard width.multipliedReportingOverflow(by: height).partialValue <= request.maxPixelCount else {
            throw .tooLarge(width: width, height: height, limit: request.maxPixelCount)
        }
        if request.cancellation.isCancelled { throw .cancelled }
        // Zero is transparent: whatever the file does not cover shows the background.
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let outcome: Result<BMPRows.Outcome, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            pixels.withUnsafeMutableBufferPointer { pixels in
                let rows = BMPRows(bitmap: bitmap, file: raw.bindMemory(to: UInt8.self), pixels: pixels, cancellation: request.cancellation)
                do throws(ImageDecodingError) {
                    return .success(bitmap.compression == .none ? try rows.decodeUncompressed() : try rows.decodeRunLengths())
                } catch {
                    return .failure(error)
                }
            }
        }
        let result = try outcome.get()
        guard result.decodedAnything else { throw .truncated(.bmp) }
        return (pixels, result.complete)
    }
}

/// The row decoding of one bitmap into an RGBA buffer of its full size.
private struct BMPRows {
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
    let pixels: UnsafeMutableBufferPointer<UInt8>
    let cancellation: CancellationFlag

    /// Rows of indices or packed colours, each padded to four bytes.
    func decodeUncompressed() throws(ImageDecodingError) -> Outcome {
        let (width, height) = (bitmap.width, bitmap.height)
        let rowLength = bitmap.rowLength
        let channels = [bitmap.masks.red, bitmap.masks.green, bitmap.masks.blue, bitmap.masks.alpha].map(Channel.init)
        let hasAlpha = bitmap.masks.alpha != 0
        var anyAlpha = false
        var rowsRead = 0
        for fileRow in 0..<height {
            if fileRow % 64 == 63, cancellation.isCancelled { throw .cancelled }
            let start = bitmap.pixelOffset + fileRow * rowLength
            guard start + (width * bitmap.bitsPerPixel + 7) / 8 <= file.count else { break }
            let y = bitmap.bottomUp ? height - 1 - fileRow : fileRow
            var out = y * width * 4
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
                    let at = start + x * size
                    var value = UInt32(file[at]) | UInt32(file[at + 1]) << 8
                    if size == 4 { value |= UInt32(file[at + 2]) << 16 | UInt32(file[at + 3]) << 24 }
                    let alpha = hasAlpha ? channels[3].value(value) : 255
                    anyAlpha = anyAlpha || (hasAlpha && alpha != 0)
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
            rowsRead += 1
        }
        // An alpha channel that is zero everywhere is a padding byte, not transparency.
        if hasAlpha, !anyAlpha {
            for index in stride(from: 3, to: width * height * 4, by: 4) { pixels[index] = 255 }
        }
        return Outcome(decodedAnything: rowsRead > 0, complete: rowsRead == height)
    }

    /// RLE8 or RLE4: runs of one index, literal runs, end-of-line, end-of-bitmap and jumps;
    /// always bottom-up.
    func decodeRunLengths() throws(ImageDecodingError) -> Outcome {
        let (width, height) = (bitmap.width, bitmap.height)
        let nibbles = bitmap.compression == .rle4
        var position = bitmap.pixelOffset
        var x = 0
        var row = 0  // counted from the bottom
        var wrote = false
        func pixel(_ index: Int) {
            if x < width, row < height {
                putIndex(((height - 1 - row) * width + x) * 4, index)
                wrote = true
            }
            x += 1
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
                row += 1
                x = 0
                if row % 64 == 63, cancellation.isCancelled { throw .cancelled }
            case 1:  // end of bitmap
                return Outcome(decodedAnything: wrote, complete: true)
            case 2:  // jump right and up
                guard position + 1 < file.count else { return Outcome(decodedAnything: wrote, complete: false) }
                x += Int(file[position])
                row += Int(file[position + 1])
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

    @inline(__always)
    private func put(_ offset: Int, _ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8) {
        pixels[offset] = red
        pixels[offset + 1] = green
        pixels[offset + 2] = blue
        pixels[offset + 3] = alpha
    }

    @inline(__always)
    private func putIndex(_ offset: Int, _ index: Int) {
        let entry = index * 4
        put(offset, bitmap.palette[entry], bitmap.palette[entry + 1], bitmap.palette[entry + 2], 255)
    }
}
