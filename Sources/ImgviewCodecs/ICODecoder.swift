import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes icons and cursors (ICO, CUR): the largest picture of the file, through the PNG and
/// BMP decoders, since each picture is one or the other.
///
/// A PNG picture is a whole PNG file. A bitmap picture is a DIB without its file header, twice
/// as high as the picture: its rows, then a 1-bit AND mask whose set bits are transparent. As
/// Windows and browsers draw them, a 32-bit picture's own alpha is used unless every alpha byte
/// is zero, and then the mask; lower depths always use the mask.
public struct ICODecoder: ImageDecoding {
    public init() {}

    /// The probe sized the largest picture by its own data, as `decode` picks it (`IconDirectory`).
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let picture = try Self.largestPicture(bytes)
        try request.admit(width: picture.width, height: picture.height)
        let start = bytes.startIndex + picture.offset
        let data = Data(bytes[start..<min(bytes.endIndex, start + picture.length)])
        do throws(ImageDecodingError) {
            let decoded = picture.isPNG ? try decodePNG(data, request: request) : try decodeBitmap(data, picture: picture, request: request)
            var image = DecodedImage(header: header, pixels: decoded.pixels)
            if !decoded.complete || data.count < picture.length {
                image.warning = "damaged or truncated ICO; showing the part of its picture that could be decoded"
            }
            return image
        } catch {
            // Said of the icon, not of the PNG or bitmap inside it.
            switch error {
            case .truncated, .empty: throw .truncated(.ico)
            case .corrupt(let format, let detail): throw .corrupt(.ico, detail: "its \(format.displayName) picture: \(detail)")
            case .notAnImage: throw .corrupt(.ico, detail: "its picture is neither PNG nor a bitmap")
            default: throw error
            }
        }
    }

    /// The picture to show, with the size its own data declares.
    static func largestPicture(_ bytes: Data) throws(ImageDecodingError) -> IconDirectory.Entry {
        let file = [UInt8](bytes)
        guard let directory = IconDirectory.read(file) else { throw file.count < 6 ? .truncated(.ico) : .notAnImage }
        // A picture whose data lies past the end of a cut file cannot be read, whatever the directory says.
        guard let largest = directory.largest else {
            throw ImageCompleteness.verdict(file, format: .ico) == .truncated
                ? .truncated(.ico) : .corrupt(.ico, detail: "no picture in the file")
        }
        return largest
    }

    private func decodePNG(_ data: Data, request: DecodeRequest) throws(ImageDecodingError) -> (pixels: PixelBuffer, complete: Bool) {
        let decoder = PNGDecoder()
        let header = try decoder.inspect(data)
        let image = try decoder.decode(data, header: header, request: request)
        return (image.pixels, image.warning == nil)
    }

    private func decodeBitmap(
        _ dib: Data, picture: IconDirectory.Entry, request: DecodeRequest
    ) throws(ImageDecodingError) -> (pixels: PixelBuffer, complete: Bool) {
        let file = Self.bitmapFile(dib, pictureHeight: picture.height)
        let bitmap = try BMPHeader.read(file.bytes)
        guard bitmap.width == picture.width, bitmap.height == picture.height, bitmap.bottomUp else {
            throw .corrupt(.ico, detail: "a bitmap picture of \(bitmap.width)×\(bitmap.height)")
        }
        // The AND mask follows the rows: one bit a pixel, rows padded to four bytes, bottom row first.
        let maskStart = file.pixelOffset + bitmap.rowLength * bitmap.height
        let maskRow = (bitmap.width + 31) / 32 * 4
        let usesMask = bitmap.bitsPerPixel < 32 || Self.alphaIsAllZero(file.bytes, bitmap: bitmap)
        let maskComplete = !usesMask || maskStart + maskRow * bitmap.height <= file.bytes.count
        let factor = PixelReducer.factor(
            width: bitmap.width, height: bitmap.height, covering: request.minimumSize, beside: 0, within: request.maxDecodeBytes)
        var downscaler = RowDownscaler(sourceWidth: bitmap.width, sourceHeight: bitmap.height, factor: factor, order: .inOrder)
        let mask: [UInt8] = usesMask && maskStart < file.bytes.count ? [UInt8](file.bytes[maskStart...]) : []
        var masked = [UInt8](repeating: 0, count: bitmap.width * 4)
        let rowsComplete = try BMPDecoder().decodeRows(file.bytes, bitmap: bitmap, request: request) { y, row in
            let rowStart = (bitmap.height - 1 - y) * maskRow
            guard usesMask, rowStart + maskRow <= mask.count else { return downscaler.add(row: y, pixels: row) }
            masked.withUnsafeMutableBufferPointer { masked in
                _ = masked.initialize(from: row)
                for x in 0..<bitmap.width where mask[rowStart + x / 8] & (0x80 >> UInt8(x % 8)) != 0 { masked[x * 4 + 3] = 0 }
                downscaler.add(row: y, pixels: UnsafeBufferPointer(masked))
            }
        }
        return (downscaler.finish(), rowsComplete && maskComplete)
    }

    /// Whether a 32-bit picture's fourth bytes are all zero: written by tools that rely on the mask.
    private static func alphaIsAllZero(_ file: Data, bitmap: BMPHeader) -> Bool {
        guard bitmap.bitsPerPixel == 32 else { return false }
        let end = min(file.count, bitmap.pixelOffset + bitmap.rowLength * bitmap.height)
        return file.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            stride(from: bitmap.pixelOffset + 3, to: end, by: 4).allSatisfy { raw[$0] == 0 }
        }
    }

    /// The DIB as a bitmap file: a 14-byte file header in front, and the picture's own height in
    /// place of the doubled one, so `BMPHeader` reads it as any other bitmap.
    static func bitmapFile(_ dib: Data, pictureHeight: Int) -> (bytes: Data, pixelOffset: Int) {
        let head = DataBytes(dib)
        let infoSize = head.littleEndian32(at: 0) ?? 0
        let core = infoSize == 12
        let bitsPerPixel = core ? (head.littleEndian16(at: 10) ?? 0) : (head.littleEndian16(at: 14) ?? 0)
        let compression = core ? 0 : (head.littleEndian32(at: 16) ?? 0)
        let colorsUsed = core ? 0 : (head.littleEndian32(at: 32) ?? 0)
        // BITFIELDS masks after a 40-byte header, then the palette.
        let masks = infoSize == 40 && compression == 3 ? 12 : infoSize == 40 && compression == 6 ? 16 : 0
        let paletteEntries = bitsPerPixel <= 8 ? (colorsUsed > 0 && colorsUsed <= 1 << bitsPerPixel ? colorsUsed : 1 << bitsPerPixel) : 0
        let pixelOffset = 14 + infoSize + masks + paletteEntries * (core ? 3 : 4)
        var bytes = Data("BM".utf8)
        for value in [14 + dib.count, 0, pixelOffset] {
            bytes.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        var picture = [UInt8](dib)
        if core {
            if picture.count >= 8 { (picture[6], picture[7]) = (UInt8(pictureHeight & 0xFF), UInt8(pictureHeight >> 8 & 0xFF)) }
        } else if picture.count >= 12 {
            for index in 0..<4 { picture[8 + index] = UInt8(truncatingIfNeeded: pictureHeight >> (8 * index)) }
        }
        bytes.append(contentsOf: picture)
        return (bytes, pixelOffset)
    }
}
