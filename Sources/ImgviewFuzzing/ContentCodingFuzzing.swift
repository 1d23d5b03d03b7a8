import ImgviewCompression

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A body in a content coding, as a server sends it, through the decoder that says whether the
/// coding ended: the first byte picks gzip, deflate or brotli, the second how many bytes each read
/// brings, the rest is the body.
///
/// Whatever the bytes, decoding ends with output or an error, never more than the sink allows;
/// and the rest compressed by zlib decodes back to itself, while the same stream short of its last
/// byte is never taken as whole.
enum ContentCodingFuzzing {
    private struct Enough: Error {}
    /// Decoded bytes taken from one body before the sink refuses more (a decompression bomb).
    private static let cap = 4 << 20

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let codings = ContentDecoder.Coding.allCases
        let coding = codings[Int(bytes[0]) % codings.count]
        let step = max(1, Int(bytes[1]))
        let body = Array(bytes.dropFirst(2))
        _ = decode(body, coding, step: step)
        if coding != .brotli, let compressed = try? Deflater.compress(Data(body), as: coding == .gzip ? .gzip : .zlib) {
            let whole = decode(Array(compressed), coding, step: step)
            precondition(whole == .whole(body), "a \(coding.name) stream did not decode back to what was compressed")
            let cut = decode(Array(compressed.dropLast()), coding, step: step)
            precondition(cut == .refused, "a \(coding.name) stream short of its last byte was taken as whole")
        }
    }

    enum Outcome: Equatable {
        case whole([UInt8])
        case refused
    }

    /// Decodes `body` in reads of `step` bytes; whole only when the coding's end arrived.
    static func decode(_ body: [UInt8], _ coding: ContentDecoder.Coding, step: Int) -> Outcome {
        guard let decoder = try? ContentDecoder(coding, bufferSize: 4096) else { return .refused }
        var output: [UInt8] = []
        var offset = 0
        do {
            while offset < body.count {
                let end = min(body.count, offset + step)
                try body[offset..<end].withUnsafeBytes { read in
                    try decoder.decode(read) { piece in
                        precondition(piece.count <= 4096, "a piece larger than the decoder's buffer")
                        guard output.count + piece.count <= cap else { throw Enough() }
                        output += piece
                    }
                }
                offset = end
            }
            try decoder.finish()
        } catch {
            return .refused
        }
        return .whole(output)
    }
}
