internal import ImgviewCompression

/// Where a file keeps its EXIF: the TIFF structure (byte order, IFD0, the Exif directory) that
/// `ExifCamera` and `ExifDate` read, found the way each format stores it.
///
/// - JPEG: the first APP1 segment starting `Exif\0\0`; PNG: the `eXIf` chunk before the image
///   data; TIFF: the file itself. These are read in place.
/// - HEIC and AVIF: the item of type `Exif` (`iinf`), wherever `iloc` puts it (in the file, or in
///   `meta`'s `idat`), after the 32-bit offset to its TIFF header that opens it.
/// - WebP: the `EXIF` chunk (the TIFF header at once; some writers put `Exif\0\0` first).
/// - JPEG XL: the `Exif` box (a 32-bit offset, then the TIFF structure), or a `brob` box holding
///   one compressed with Brotli, as cjxl writes it.
/// The last three are copied out, at most `maxCopiedBytes`. Every offset comes from the file and
/// is checked.
public enum ExifBlock {
    /// Where the block is.
    public enum Location: Equatable {
        /// A range of the bytes themselves.
        case inPlace(Range<Int>)
        /// A copy (the container's item, chunk or box, its prefix left out; or decompressed).
        case copied([UInt8])
    }

    /// The most EXIF copied out of a container: a JPEG's segment holds at most 64 KB, and a
    /// camera's EXIF with a preview image a few hundred.
    public static let maxCopiedBytes = 1 << 20

    /// The block of `bytes`; nil when the format keeps none there or it cannot be read.
    public static func locate(in bytes: some ByteReader) -> Location? {
        switch ImageFormat.sniff(bytes.bytes(at: 0, count: ImageFormat.sniffLength)) {
        case .jpeg: inJPEG(bytes).map(Location.inPlace)
        case .png: inPNG(bytes).map(Location.inPlace)
        case .tiff: .inPlace(0..<bytes.count)
        case .heic, .avif: inISOMedia(bytes).map(Location.copied)
        case .webp: inWebP(bytes).map(Location.copied)
        case .jxl: inJPEGXL(bytes).map(Location.copied)
        default: nil
        }
    }

    /// The TIFF structure in the first `Exif\0\0` APP1 segment, cut where the bytes end.
    static func inJPEG(_ bytes: some ByteReader) -> Range<Int>? {
        var found: Range<Int>?
        // A segment cut by the end of the bytes is handed on: the EXIF segment, cut, is still the one wanted.
        JPEGMarkers.walk(bytes, handingOnACutSegment: true) { segment in
            // Start of scan: the metadata segments are all before it.
            if segment.marker == 0xDA { return .stop }
            let body = segment.payload
            guard segment.marker == 0xE1, bytes.matches(exifPrefix, at: body.lowerBound), body.count > 6 else { return .next }
            found = (body.lowerBound + 6)..<body.upperBound
            return .stop
        }
        return found
    }

    /// The data of an `eXIf` chunk before the image data.
    static func inPNG(_ bytes: some ByteReader) -> Range<Int>? {
        var offset = 8
        while let length = bytes.bigEndian32(at: offset), let type = bytes.bigEndian32(at: offset + 4) {
            let data = offset + 8
            switch type {
            case 0x6558_4966: return data..<min(data + length, bytes.count)  // eXIf
            case 0x4944_4154, 0x4945_4E44: return nil  // IDAT, IEND
            default: offset = data + length + 4
            }
        }
        return nil
    }

    /// HEIF and AVIF: the `Exif` item of the top-level `meta` box.
    static func inISOMedia(_ bytes: some ByteReader) -> [UInt8]? {
        let topLevel = ISOMediaHeader.boxes(in: bytes, 0..<bytes.count)
        guard let meta = topLevel.first(where: { $0.type == "meta" }), meta.declaredEnd <= bytes.count,
            meta.declaredEnd - meta.start <= ImageProbe.maxMetaBytes
        else { return nil }
        let metaBytes = bytes.bytes(at: meta.start, count: meta.declaredEnd - meta.start)
        guard let children = ISOMediaHeader.metaChildren(metaBytes),
            let iinf = children.first(where: { $0.type == "iinf" }), let iloc = children.first(where: { $0.type == "iloc" }),
            let exifID = ISOMediaHeader.itemTypes(metaBytes, iinf: iinf).filter({ $0.value == "Exif" }).keys.min(),
            let item = ISOMediaHeader.itemLocations(metaBytes, iloc: iloc)?.first(where: { $0.id == exifID }),
            item.dataReference == 0,  // in this file
            let payload = ISOMediaHeader.itemData(item, file: bytes, meta: metaBytes, children: children, limit: maxCopiedBytes),
            payload.whole
        else { return nil }
        return afterHeaderOffset(payload.bytes)
    }

    /// WebP: the `EXIF` chunk, wherever it is among the chunks (usually after the image data).
    static func inWebP(_ bytes: some ByteReader) -> [UInt8]? {
        var position = 12
        for _ in 0..<4096 {
            guard let length = bytes.littleEndian32(at: position + 4) else { return nil }
            let data = position + 8
            if bytes.matches(Array("EXIF".utf8), at: position) {
                guard length <= maxCopiedBytes, data + length <= bytes.count else { return nil }
                let chunk = bytes.bytes(at: data, count: length)
                return chunk.starts(with: exifPrefix) ? Array(chunk.dropFirst(6)) : chunk
            }
            // Chunks are padded to an even length.
            position = data + length + (length & 1)
        }
        return nil
    }

    /// JPEG XL in its container: the `Exif` box, or a `brob` box whose inner type is `Exif`.
    static func inJPEGXL(_ bytes: some ByteReader) -> [UInt8]? {
        // A bare codestream has no boxes, so no EXIF.
        guard bytes.matches([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20], at: 0) else { return nil }
        for box in ISOMediaHeader.boxes(in: bytes, 0..<bytes.count) {
            let size = box.payload.count
            switch box.type {
            case "Exif":
                guard size <= maxCopiedBytes, box.declaredEnd <= bytes.count else { return nil }
                return afterHeaderOffset(bytes.bytes(at: box.payload.lowerBound, count: size))
            case "brob" where bytes.matches(Array("Exif".utf8), at: box.payload.lowerBound):
                // Compressed EXIF is no larger than what it decompresses to is allowed to be.
                guard size > 4, size <= maxCopiedBytes, box.declaredEnd <= bytes.count,
                    let payload = brotliDecompressed(bytes.bytes(at: box.payload.lowerBound + 4, count: size - 4))
                else { return nil }
                return afterHeaderOffset(payload)
            default:
                continue
            }
        }
        return nil
    }

    private static let exifPrefix = Array("Exif".utf8) + [0, 0]

    /// An `Exif` item's or box's data: a 32-bit big-endian offset from its end to the TIFF header,
    /// then the block. Writers that count the offset from elsewhere, or write `Exif\0\0` first
    /// and say 0, are met by looking for the header itself within the first 64 bytes.
    private static func afterHeaderOffset(_ data: [UInt8]) -> [UInt8]? {
        guard data.count > 4 else { return nil }
        let reader = ArrayBytes(data)
        func isTIFFHeader(at offset: Int) -> Bool {
            reader.matches([0x49, 0x49, 0x2A, 0x00], at: offset) || reader.matches([0x4D, 0x4D, 0x00, 0x2A], at: offset)
        }
        if let offset = reader.bigEndian32(at: 0), offset < data.count - 4, isTIFFHeader(at: 4 + offset) {
            return Array(data[(4 + offset)...])
        }
        guard let start = (0..<min(64, data.count)).first(where: isTIFFHeader) else { return nil }
        return Array(data[start...])
    }

    /// Brotli data decompressed whole, or nil when it is damaged, cut short or larger than
    /// `maxCopiedBytes` (libbrotlidec, opened the first time).
    private static func brotliDecompressed(_ compressed: [UInt8]) -> [UInt8]? {
        struct TooLarge: Error {}
        guard let decoder = try? ContentDecoder(.brotli, bufferSize: 64 << 10) else { return nil }
        var output: [UInt8] = []
        do {
            try compressed.withUnsafeBytes { input in
                try decoder.decode(input) { piece in
                    guard output.count + piece.count <= maxCopiedBytes else { throw TooLarge() }
                    output += piece
                }
            }
            try decoder.finish()
        } catch {
            return nil
        }
        return output
    }
}
