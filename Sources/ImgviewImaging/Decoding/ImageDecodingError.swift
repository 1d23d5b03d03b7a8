import ImgviewSupport

/// Why bytes could not become pixels; every case but `cancelled` is a one-line message and exit status 7.
public enum ImageDecodingError: UserFacingError, Equatable {
    /// Zero bytes.
    case empty
    /// The bytes start with no known image signature.
    case notAnImage
    /// A format the decoder at hand does not decode: since every format imgview recognises has a
    /// decoder, only decoders that decode less (tests', the previews of bytes still arriving) say so.
    case unsupportedFormat(ImageFormat)
    /// The header declares more pixels than allowed; refused before allocating.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// Within the pixel limit, but the format's library must hold `bytes` at full size to decode
    /// it (`what`: "a lossless WebP", "an AVIF"), more than `DecodeRequest.maxDecodeBytes`.
    case tooLargeToDecode(what: String, width: Int, height: Int, bytes: Int, limit: Int)
    /// The library rejected the data; `detail` is its message.
    case corrupt(ImageFormat, detail: String)
    /// The data ended before any pixel could be decoded.
    case truncated(ImageFormat)
    /// Nobody waited for the pixels any more; the decode stopped part way.
    case cancelled
    /// The library that decodes the format, opened on first use, is not installed (or too old).
    case libraryMissing(ImageFormat, SharedLibrary.Unavailable)
    /// A thumbnail store remembers that the file, as it is now, could not be read before, and why
    /// ("" when its note does not say).
    case failedBefore(reason: String)

    public var message: String {
        switch self {
        case .empty:
            "not an image: the data is empty"
        case .notAnImage:
            "not an image: the data starts with no known image signature"
        case .unsupportedFormat(let format):
            "unsupported format: \(format.displayName) images cannot be previewed here"
        case .tooLarge(let width, let height, let limit):
            "image too large: \(width)×\(height) is \(Self.megapixels(width, by: height)) megapixels, the limit is \(Self.megapixels(limit))"
        case .tooLargeToDecode(let what, let width, let height, let bytes, let limit):
            "image too large to decode: \(what) of \(width)×\(height) needs \(Self.megabytes(bytes)) MB at full size, "
                + "the limit is \(Self.megabytes(limit)) MB (--max-megapixels above \(DecodeRequest.defaultMaxPixelCount / 1_000_000) raises it)"
        case .corrupt(let format, let detail):
            "corrupt \(format.displayName) image: \(TerminalText.sanitized(detail))"
        case .truncated(let format):
            "truncated \(format.displayName) image: the data ends before any pixel"
        case .cancelled:
            "cancelled"
        case .libraryMissing(let format, let library):
            "cannot decode \(format.displayName) images: \(library.summary)"
        case .failedBefore(let reason) where reason.isEmpty:
            "could not be read as an image before, and the file has not changed since"
        case .failedBefore(let reason):
            "\(TerminalText.sanitized(reason)) (found before, and the file has not changed since)"
        }
    }

    public var exitStatus: ExitStatus { self == .cancelled ? .interrupted : .badImage }

    /// Whether the error says the bytes themselves are bad (so a cached copy is not worth keeping):
    /// true for damage, truncation and refusal, false for a format imgview only recognises or a
    /// decode nobody waited for.
    public var condemnsTheBytes: Bool {
        switch self {
        case .unsupportedFormat, .cancelled, .libraryMissing, .failedBefore: false
        case .empty, .notAnImage, .tooLarge, .tooLargeToDecode, .corrupt, .truncated: true
        }
    }

    /// The megapixels of `width × height`, which a hostile header may make past what an Int holds:
    /// a BigTIFF's sides take 63 bits each, so even the megapixels may pass it, and are then written
    /// as the floating-point number they are.
    private static func megapixels(_ width: Int, by height: Int) -> String {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, count <= Int.max - 50_000 else {
            let megapixels = (Double(width) * Double(height) / 1_000_000).rounded()
            return megapixels.magnitude < 0x1p63 ? String(Int(megapixels)) : "\(megapixels)"
        }
        return megapixels(count)
    }

    /// Whole megabytes (10⁶ bytes), rounded.
    private static func megabytes(_ bytes: Int) -> Int {
        bytes / 1_000_000 + (bytes % 1_000_000 >= 500_000 ? 1 : 0)
    }

    private static func megapixels(_ count: Int) -> String {
        let tenths = (count + 50_000) / 100_000
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
