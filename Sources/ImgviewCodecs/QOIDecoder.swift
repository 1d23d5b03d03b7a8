import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes QOI, the "Quite OK Image" format (qoiformat.org), written here: a 14-byte header and
/// a stream of one- to five-byte operations, each giving one pixel or a run of them.
///
/// Rows go into a `RowDownscaler` as they decode, so memory follows the size asked for, whatever
/// size the header declares; a file that ends early keeps the rows that arrived (the rest
/// transparent) and comes back with a warning. A header that says "all channels linear" is
/// handed on as `EmbeddedColorProfile.linearSRGB`.
public struct QOIDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        _ = try QOIHeader.read(bytes)  // channels and colour space, which the probe does not check
        return try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let qoi = try QOIHeader.read(bytes)
        let (width, height) = (qoi.width, qoi.height)
        guard request.admits(width: width, height: height), width <= Self.maxRowPixels else {
            throw .tooLarge(width: width, height: height, limit: request.maxPixelCount)
        }
        if request.cancellation.isCancelled { throw .cancelled }
        var scaler = RowDownscaler(sourceWidth: width, sourceHeight: height, covering: request.minimumSize, order: .inOrder)
        let outcome = bytes.withUnsafeBytes { raw in
            QOIStream(bytes: raw.bindMemory(to: UInt8.self), header: qoi).decode(
                into: &scaler, cancellation: request.cancellation, input: request.mappedInput)
        }
        switch outcome {
        case .cancelled:
            throw .cancelled
        case .rows(let rows, let pixels):
            guard pixels > 0 else { throw .truncated(.qoi) }
            let warning = rows < height ? "truncated QOI; showing the rows that could be decoded" : nil
            return DecodedImage(
                header: header, pixels: scaler.finish(), warning: warning, colorProfile: qoi.isLinear ? .linearSRGB : nil)
        }
    }

    /// The widest image decoded: one RGBA row of it is 16 MB, as for PNG.
    static let maxRowPixels = 1 << 22
}

/// The 14-byte QOI header: "qoif", width and height (big-endian), channels (3 or 4), colour space (0 or 1).
struct QOIHeader {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    /// Colour space 1: every channel, not only alpha, is linear.
    var isLinear: Bool

    static let length = 14

    static func read(_ bytes: Data) throws(ImageDecodingError) -> QOIHeader {
        let head = [UInt8](bytes.prefix(length))
        guard head.starts(with: Array("qoif".utf8)) else { throw head.count < 4 ? .truncated(.qoi) : .notAnImage }
        guard head.count == length else { throw .truncated(.qoi) }
        let width = ArrayBytes(head).bigEndian32(at: 4) ?? 0
        let height = ArrayBytes(head).bigEndian32(at: 8) ?? 0
        guard width > 0, height > 0 else { throw .corrupt(.qoi, detail: "width \(width), height \(height)") }
        guard head[12] == 3 || head[12] == 4 else { throw .corrupt(.qoi, detail: "\(head[12]) channels") }
        guard head[13] <= 1 else { throw .corrupt(.qoi, detail: "colour space \(head[13])") }
        return QOIHeader(width: width, height: height, hasAlpha: head[12] == 4, isLinear: head[13] == 1)
    }
}

/// One pass over a QOI file's operations, row by row.
private struct QOIStream {
    enum Outcome {
        /// Rows decoded whole, and pixels decoded in all (a last row may be partial).
        case rows(Int, pixels: Int)
        case cancelled
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let header: QOIHeader

    func decode(into scaler: inout RowDownscaler, cancellation: CancellationFlag, input: MappedFile?) -> Outcome {
        let (width, height) = (header.width, header.height)
        let row = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: width * 4)
        defer { row.deallocate() }
        // The 64 most recently seen colours, by hash, as RGBA.
        var seen = [UInt8](repeating: 0, count: 64 * 4)
        var (red, green, blue, alpha): (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)
        var run = 0
        var position = QOIHeader.length
        let end = bytes.count
        var pixels = 0
        for y in 0..<height {
            if y % 64 == 63 {
                if cancellation.isCancelled { return .cancelled }
                input?.releaseResidentPages()
            }
            var x = 0
            pixel: while x < width {
                if run > 0 {
                    run -= 1
                } else {
                    guard position < end else { break pixel }
                    let tag = bytes[position]
                    if tag == 0xFE {  // RGB
                        guard position + 4 <= end else { break pixel }
                        (red, green, blue) = (bytes[position + 1], bytes[position + 2], bytes[position + 3])
                        position += 4
                    } else if tag == 0xFF {  // RGBA
                        guard position + 5 <= end else { break pixel }
                        (red, green, blue, alpha) = (bytes[position + 1], bytes[position + 2], bytes[position + 3], bytes[position + 4])
                        position += 5
                    } else {
                        switch tag >> 6 {
                        case 0:  // INDEX
                            let slot = Int(tag) * 4
                            (red, green, blue, alpha) = (seen[slot], seen[slot + 1], seen[slot + 2], seen[slot + 3])
                            position += 1
                        case 1:  // DIFF: three 2-bit differences, biased by 2
                            red &+= (tag >> 4 & 3) &- 2
                            green &+= (tag >> 2 & 3) &- 2
                            blue &+= (tag & 3) &- 2
                            position += 1
                        case 2:  // LUMA: green's 6-bit difference, then red's and blue's relative to it
                            guard position + 2 <= end else { break pixel }
                            let greenStep = (tag & 0x3F) &- 32
                            let second = bytes[position + 1]
                            red &+= greenStep &+ (second >> 4) &- 8
                            green &+= greenStep
                            blue &+= greenStep &+ (second & 0xF) &- 8
                            position += 2
                        default:  // RUN of 1 to 62: this pixel and `run` more
                            run = Int(tag & 0x3F)
                            position += 1
                        }
                    }
                    let slot = (Int(red) &* 3 &+ Int(green) &* 5 &+ Int(blue) &* 7 &+ Int(alpha) &* 11) % 64 * 4
                    (seen[slot], seen[slot + 1], seen[slot + 2], seen[slot + 3]) = (red, green, blue, alpha)
                }
                let at = x * 4
                (row[at], row[at + 1], row[at + 2], row[at + 3]) = (red, green, blue, header.hasAlpha ? alpha : 255)
                x += 1
            }
            pixels += x
            guard x == width else {
                // The data ended inside this row: what arrived shows, the rest stays transparent.
                if x > 0 {
                    for index in x * 4..<width * 4 { row[index] = 0 }
                    scaler.add(row: y, pixels: UnsafeBufferPointer(row))
                }
                return .rows(y, pixels: pixels)
            }
            scaler.add(row: y, pixels: UnsafeBufferPointer(row))
        }
        return .rows(height, pixels: pixels)
    }
}
