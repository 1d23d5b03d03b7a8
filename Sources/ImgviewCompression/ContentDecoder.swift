internal import CBrotli
internal import CZlib

/// Decodes an HTTP body sent in a content coding (gzip, deflate, br) and says whether the coding's
/// own end arrived: the only proof that a compressed body is whole.
///
/// HTTP's framing (Content-Length, chunks) counts the compressed bytes, so a server that sends a
/// compressed stream cut short with a Content-Length matching what it sent looks complete to it.
/// libcurl's own decoder does not notice either (curl 7.88 reports success for a gzip or deflate
/// stream without its end), so the loader decodes here: gzip's trailer (CRC-32 and length) and
/// deflate's final block and Adler-32 are checked by zlib, brotli's last meta-block by libbrotli.
public final class ContentDecoder {
    /// The codings imgview asks for and can check, as an Accept-Encoding value.
    public static let acceptEncoding = "gzip, deflate, br"

    /// A content coding the decoder knows.
    public enum Coding: String, Sendable, CaseIterable {
        case gzip
        case deflate
        case brotli = "br"
    }

    public let coding: Coding
    private var stream: any CodingStream
    private var isEnded = false
    /// Decoded bytes go through this buffer.
    private let output: UnsafeMutableRawBufferPointer

    /// A decoder for the coding a Content-Encoding value names; nil for `identity` or no coding.
    ///
    /// Throws `ContentDecodingError.unsupported` for a coding it cannot decode (one imgview did
    /// not ask for, or several stacked).
    public static func forContentEncoding(_ value: String?) throws(ContentDecodingError) -> ContentDecoder? {
        let codings = (value ?? "").split(separator: ",").map { $0.trimmingWhitespace().lowercased() }.filter {
            !$0.isEmpty && $0 != "identity"
        }
        guard let name = codings.first else { return nil }
        guard codings.count == 1 else { throw .unsupported(codings.joined(separator: ", ")) }
        let coding: Coding
        switch name {
        case "gzip", "x-gzip": coding = .gzip
        case "deflate": coding = .deflate
        case "br": coding = .brotli
        default: throw .unsupported(name)
        }
        return try ContentDecoder(coding)
    }

    public init(_ coding: Coding, bufferSize: Int = 256 << 10) throws(ContentDecodingError) {
        self.coding = coding
        switch coding {
        case .gzip: stream = try ZlibStream(coding)
        case .deflate: stream = try ZlibStream(coding)
        case .brotli: stream = try BrotliStream()
        }
        output = .allocate(byteCount: bufferSize, alignment: 16)
    }

    deinit {
        output.deallocate()
    }

    /// Decodes `input`, handing each piece of decoded bytes to `sink` (valid only during the call).
    public func decode(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var remaining = input
        var isNextMember = false
        while true {
            if isEnded {
                guard !remaining.isEmpty else { return }
                // gzip allows several members one after another (RFC 1952 §2.2); other codings end once.
                guard coding == .gzip else { throw ContentDecodingError.trailingBytes(coding) }
                try stream.reset()
                isEnded = false
                isNextMember = true
            }
            let step: DecodeStep
            do {
                step = try stream.decode(remaining, into: output)
            } catch {
                // What follows the end is not another gzip member.
                if isNextMember, case .corrupt = error { throw ContentDecodingError.trailingBytes(coding) }
                throw error
            }
            if step.produced > 0 { try sink(UnsafeRawBufferPointer(rebasing: output[0..<step.produced])) }
            remaining = UnsafeRawBufferPointer(rebasing: remaining[step.consumed...])
            if step.ended {
                isEnded = true
                continue
            }
            // Done when everything was taken and nothing waits for room; or when nothing moved,
            // which only more input can change.
            if remaining.isEmpty && !stream.hasPendingOutput { return }
            if step.consumed == 0 && step.produced == 0 { return }
            isNextMember = false
        }
    }

    /// Checks that the stream reached its end; call once the body is over.
    public func finish() throws(ContentDecodingError) {
        guard isEnded else { throw .cutShort(coding) }
    }
}

/// Why a body in a content coding cannot be taken.
public enum ContentDecodingError: Error, Sendable, Equatable {
    /// The body stopped before the coding's end: a stream cut short.
    case cutShort(ContentDecoder.Coding)
    /// The bytes do not decode (a bad header, a check that fails).
    case corrupt(ContentDecoder.Coding, String)
    /// Bytes follow the end of the stream.
    case trailingBytes(ContentDecoder.Coding)
    /// A coding imgview cannot decode.
    case unsupported(String)
    /// The decoder could not be set up (out of memory).
    case unavailable(String)

    /// Words for the user, naming what the server sent.
    public var reason: String {
        switch self {
        case .cutShort(let coding): "the \(coding.name) body stops before the end of its \(coding.name) stream"
        case .corrupt(let coding, let detail): "the \(coding.name) body does not decode (\(detail))"
        case .trailingBytes(let coding): "bytes follow the end of the \(coding.name) stream"
        case .unsupported(let coding): "a body in the \"\(coding)\" coding, which imgview did not ask for"
        case .unavailable(let detail): "cannot decode the body (\(detail))"
        }
    }
}

extension ContentDecoder.Coding {
    /// The coding's name in messages.
    public var name: String {
        switch self {
        case .gzip: "gzip"
        case .deflate: "deflate"
        case .brotli: "brotli"
        }
    }
}

/// What one call of a stream's decode did.
private struct DecodeStep {
    var consumed: Int
    var produced: Int
    var ended: Bool
}

private protocol CodingStream {
    /// Decodes as much of `input` as fits in `output`.
    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ContentDecodingError) -> DecodeStep
    /// Whether decoded bytes wait for room in the output.
    var hasPendingOutput: Bool { get }
    /// Starts a new stream (the next gzip member).
    func reset() throws(ContentDecodingError)
}

/// gzip and deflate through zlib.
private final class ZlibStream: CodingStream {
    private let coding: ContentDecoder.Coding
    private var stream = z_stream()
    private var isInitialized = false
    /// Whether the first bytes were seen (deflate decides between zlib's wrapper and raw deflate on them).
    private var hasStarted = false
    private(set) var hasPendingOutput = false

    init(_ coding: ContentDecoder.Coding) throws(ContentDecodingError) {
        self.coding = coding
        if coding == .gzip { try start(windowBits: 15 + 16) }
    }

    deinit {
        if isInitialized { inflateEnd(&stream) }
    }

    private func start(windowBits: Int32) throws(ContentDecodingError) {
        let status = imgview_inflate_init2(&stream, windowBits)
        guard status == Z_OK else { throw .unavailable("zlib could not start: \(status)") }
        isInitialized = true
    }

    func reset() throws(ContentDecodingError) {
        guard inflateReset(&stream) == Z_OK else { throw .unavailable("zlib could not restart") }
        hasPendingOutput = false
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ContentDecodingError) -> DecodeStep {
        if !isInitialized {
            // HTTP's deflate is zlib-wrapped, but some servers send raw deflate: told by the zlib
            // header's check bits, as curl and browsers do.
            guard !input.isEmpty else { return DecodeStep(consumed: 0, produced: 0, ended: false) }
            let first = UInt16(input[0])
            let isZlib = first & 0x0F == 8 && (input.count < 2 || (first << 8 | UInt16(input[1])) % 31 == 0)
            try start(windowBits: isZlib ? 15 : -15)
        }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(output.count)
        let status = inflate(&stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.avail_in)
        let produced = output.count - Int(stream.avail_out)
        hasPendingOutput = stream.avail_out == 0
        switch status {
        case Z_STREAM_END:
            hasPendingOutput = false
            return DecodeStep(consumed: consumed, produced: produced, ended: true)
        case Z_OK, Z_BUF_ERROR:
            return DecodeStep(consumed: consumed, produced: produced, ended: false)
        case Z_MEM_ERROR:
            throw .unavailable("out of memory")
        default:
            let detail = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw .corrupt(coding, detail)
        }
    }
}

/// brotli through libbrotlidec.
private final class BrotliStream: CodingStream {
    private let brotli: imgview_brotli
    private let state: OpaquePointer
    private(set) var hasPendingOutput = false

    init() throws(ContentDecodingError) {
        brotli = try BrotliLibrary.functions()
        guard let state = brotli.BrotliDecoderCreateInstance(nil, nil, nil) else { throw .unavailable("out of memory") }
        self.state = state
    }

    deinit {
        brotli.BrotliDecoderDestroyInstance(state)
    }

    func reset() throws(ContentDecodingError) {
        // Brotli has no members: bytes after the end are refused before a reset could be asked for.
        throw .trailingBytes(.brotli)
    }

    func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ContentDecodingError) -> DecodeStep {
        var availableIn = input.count
        var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var availableOut = output.count
        var nextOut = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let result = brotli.BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
        let step = DecodeStep(consumed: input.count - availableIn, produced: output.count - availableOut, ended: false)
        hasPendingOutput = result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT
        switch result {
        case BROTLI_DECODER_RESULT_SUCCESS:
            guard availableIn == 0 else { throw .trailingBytes(.brotli) }
            return DecodeStep(consumed: step.consumed, produced: step.produced, ended: true)
        case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT, BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
            return step
        default:
            let code = brotli.BrotliDecoderGetErrorCode(state)
            throw .corrupt(.brotli, brotli.BrotliDecoderErrorString(code).map { String(cString: $0) } ?? "error \(code.rawValue)")
        }
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
