import Foundation
import Testing

@testable import ImgviewCompression
@testable import ImgviewServer

/// Compressed HTTP bodies: decoded whole, and a stream that stops before its end is caught, which
/// libcurl's own decoder lets through (curl 7.88 reports success for a cut gzip or deflate stream).
@Suite("Content codings")
struct ContentDecoderTests {
    static let text = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) })

    /// `data` in `coding`, as the loopback server sends it.
    static func encoded(_ data: Data, _ coding: Fault.Encoding.Coding) throws -> Data {
        switch coding {
        case .gzip: try Deflater.compress(data, as: .gzip)
        case .deflate: try Deflater.compress(data, as: .zlib)
        case .rawDeflate: try Deflater.compress(data, as: .raw)
        case .brotli: BrotliStored.encode(data)
        }
    }

    /// Decodes `body` fed in pieces of `step` bytes; returns what came out, or throws.
    static func decode(_ body: Data, as encoding: String, step: Int = 4096) throws -> Data {
        let decoder = try #require(try ContentDecoder.forContentEncoding(encoding))
        var output = Data()
        var offset = 0
        while offset < body.count {
            let piece = body[body.startIndex + offset..<body.startIndex + min(body.count, offset + step)]
            try piece.withUnsafeBytes { try decoder.decode($0) { output.append(contentsOf: $0) } }
            offset += step
        }
        try decoder.finish()
        return output
    }

    @Test(arguments: Fault.Encoding.Coding.allCases, [1, 4096, 1 << 20])
    func aWholeStreamDecodes(coding: Fault.Encoding.Coding, step: Int) throws {
        let body = try Self.encoded(Self.text, coding)
        #expect(try Self.decode(body, as: coding.token, step: step) == Self.text)
    }

    @Test(arguments: Fault.Encoding.Coding.allCases)
    func aStreamCutShortIsCaughtWhereverItStops(coding: Fault.Encoding.Coding) throws {
        let body = try Self.encoded(Self.text, coding)
        // In the middle, and just before the end: gzip's trailer, zlib's Adler-32, brotli's last meta-block.
        for cut in [body.count / 2, body.count - 1] {
            let kind = try #require(ContentDecoder.Coding(rawValue: coding.token))
            #expect(throws: ContentDecodingError.cutShort(kind), "\(coding) cut at \(cut) of \(body.count)") {
                try Self.decode(body.prefix(cut), as: coding.token)
            }
        }
    }

    @Test func aGzipTrailerThatDoesNotMatchIsCorrupt() throws {
        var body = try Self.encoded(Self.text, .gzip)
        body[body.count - 8] ^= 0xFF  // the CRC-32
        #expect(throws: ContentDecodingError.corrupt(.gzip, "incorrect data check")) { try Self.decode(body, as: "gzip") }
    }

    @Test func gzipMembersFollowEachOtherButJunkDoesNot() throws {
        let first = try Self.encoded(Self.text.prefix(1000), .gzip)
        let second = try Self.encoded(Self.text.suffix(500), .gzip)
        #expect(try Self.decode(first + second, as: "x-gzip", step: 7) == Self.text.prefix(1000) + Self.text.suffix(500))
        #expect(throws: ContentDecodingError.trailingBytes(.gzip)) { try Self.decode(first + Data("junk".utf8), as: "gzip") }
        #expect(throws: ContentDecodingError.trailingBytes(.brotli)) {
            try Self.decode(Self.encoded(Self.text.prefix(10), .brotli) + Data([0]), as: "br")
        }
    }

    @Test func codingsImgviewDidNotAskForAreRefused() throws {
        #expect(try ContentDecoder.forContentEncoding(nil) == nil)
        #expect(try ContentDecoder.forContentEncoding(" identity ") == nil)
        #expect(throws: ContentDecodingError.unsupported("zstd")) { try ContentDecoder.forContentEncoding("zstd") }
        #expect(throws: ContentDecodingError.unsupported("gzip, br")) { try ContentDecoder.forContentEncoding("gzip, br") }
        #expect(ContentDecodingError.cutShort(.gzip).reason == "the gzip body stops before the end of its gzip stream")
    }
}
