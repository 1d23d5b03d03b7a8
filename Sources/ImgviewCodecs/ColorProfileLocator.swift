internal import CZlib
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finds the colour space a file declares where its format keeps it ahead of the pixels, so
/// `inspect` can say it (`info`) and the decoder hand it to colour management: JPEG's APP2
/// `ICC_PROFILE` segments, PNG's `iCCP`, WebP's `ICCP`, TIFF's tag 34675, AVIF's and HEIC's `colr`.
///
/// A profile that is damaged (APP2 pieces missing, a chunk that does not inflate) is ignored,
/// as browsers do: the pixels are then taken as sRGB.
enum ColorProfileLocator {
    /// The most an ICC profile may be: real ones are 0.5–60 KB (CMYK print profiles up to ~2 MB).
    static let maxProfileBytes = 4 << 20

    static func profile(in bytes: Data, format: ImageFormat) -> EmbeddedColorProfile? {
        // What comes before the pixels is read, not a photo's megabytes of image data.
        let head = bytes.prefix(maxProfileBytes + (2 << 20))
        return switch format {
        case .jpeg: jpegProfile(head)
        case .png: pngProfile(head)
        case .webp: webpProfile(head)
        case .tiff: tiffProfile(bytes, page: 0)
        case .avif, .heic: ISOMediaHeader.primaryColorProfile(Array(bytes.prefix(1 << 20)))
        default: nil
        }
    }

    /// JPEG: `ICC_PROFILE\0`, a 1-based sequence number and the count, in APP2 segments before
    /// the first scan, joined in order; each number once, every count the same.
    static func jpegProfile(_ bytes: Data) -> EmbeddedColorProfile? {
        // Read in place: the segments before the first scan are a few KB of a photo's megabytes.
        let reader = DataBytes(bytes)
        var pieces: [Int: Range<Int>] = [:]
        var count: Int?
        var consistent = true
        let signature = Array("ICC_PROFILE\0".utf8)
        _ = JPEGMarkers.walk(reader) { segment in
            if segment.marker == 0xDA { return .stop }
            guard segment.marker == 0xE2, segment.payload.count > 14, reader.matches(signature, at: segment.payload.lowerBound),
                let sequence = reader.byte(at: segment.payload.lowerBound + 12).map(Int.init),
                let total = reader.byte(at: segment.payload.lowerBound + 13).map(Int.init)
            else { return .next }
            if count.map({ $0 != total }) ?? false || pieces[sequence] != nil || sequence < 1 || sequence > total { consistent = false }
            count = total
            pieces[sequence] = (segment.payload.lowerBound + 14)..<segment.payload.upperBound
            return .next
        }
        guard consistent, let count, count >= 1, pieces.count == count else { return nil }
        let profile = (1...count).flatMap { reader.bytes(at: pieces[$0]!.lowerBound, count: pieces[$0]!.count) }
        return profile.isEmpty ? nil : .icc(profile)
    }

    /// PNG: an `sRGB` chunk means sRGB; else the `iCCP` chunk's profile, inflated. `gAMA` and
    /// `cHRM` alone are not read (DECISIONS.md, "Colour management").
    static func pngProfile(_ bytes: Data) -> EmbeddedColorProfile? {
        // Read in place: the chunks before the first IDAT are a few bytes of a file that may be megabytes.
        let reader = DataBytes(bytes)
        var offset = 8
        while offset + 12 <= reader.count {
            let length = reader.bigEndian32(at: offset) ?? 0
            let type = String(decoding: reader.bytes(at: offset + 4, count: 4), as: UTF8.self)
            let start = offset + 8
            guard length < Int32.max, start + length <= reader.count else { return nil }
            switch type {
            case "sRGB", "IDAT", "IEND":
                return nil
            case "iCCP":
                let chunk = reader.bytes(at: start, count: length)
                guard let nameEnd = chunk.firstIndex(of: 0), nameEnd + 2 <= chunk.endIndex, chunk[nameEnd + 1] == 0 else { return nil }
                return inflate(Array(chunk[(nameEnd + 2)...])).map { .icc($0) }
            default:
                offset = start + length + 4
            }
        }
        return nil
    }

    /// WebP: the extended format's `ICCP` chunk, before the image data.
    static func webpProfile(_ bytes: Data) -> EmbeddedColorProfile? {
        // Read in place, as PNG's.
        let reader = DataBytes(bytes)
        guard reader.count >= 12, reader.matches(Array("RIFF".utf8), at: 0), reader.matches(Array("WEBP".utf8), at: 8) else { return nil }
        var offset = 12
        while offset + 8 <= reader.count {
            let type = String(decoding: reader.bytes(at: offset, count: 4), as: UTF8.self)
            let size = reader.littleEndian32(at: offset + 4) ?? 0
            let start = offset + 8
            guard size <= maxProfileBytes || type != "ICCP" else { return nil }
            if type == "ICCP" {
                guard start + size <= reader.count, size > 0 else { return nil }
                return .icc(reader.bytes(at: start, count: size))
            }
            if type != "VP8X" { return nil }  // the profile, when there is one, follows VP8X at once
            offset = start + size + (size & 1)
        }
        return nil
    }

    /// TIFF: the ICC profile tag of `page` (counting only pages, not thumbnails or masks).
    static func tiffProfile(_ bytes: Data, page: Int) -> EmbeddedColorProfile? {
        let reader = DataBytes(bytes)
        guard let directories = TIFFDirectories.read(reader), page < directories.pages.count,
            let range = directories.pages[page].colorProfileLocation, range.count <= maxProfileBytes,
            range.lowerBound >= 8, range.upperBound <= bytes.count
        else { return nil }
        return .icc(reader.bytes(at: range.lowerBound, count: range.count))
    }

    /// zlib data inflated, or nil when it is damaged or inflates past `maxProfileBytes`.
    static func inflate(_ compressed: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard imgview_inflate_init(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = compressed
        return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let result = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output += chunk[0..<produced]
                if output.count > maxProfileBytes { return nil }
                if result == Z_STREAM_END { return output }
                guard result == Z_OK, produced > 0 || stream.avail_in > 0 else { return nil }
            }
        }
    }
}
