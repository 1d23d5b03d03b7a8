import ImgviewCore

/// The decoder the application uses: sniffs the format from the bytes and hands them to
/// the JPEG or PNG decoder; every other format is a clear "unsupported" error.
public struct ImageDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: [UInt8]) throws(ImageDecodingError) -> ImageHeader {
        switch try Self.format(of: bytes) {
        case .jpeg: try JPEGDecoder().inspect(bytes)
        case .png: try PNGDecoder().inspect(bytes)
        case let other: throw .unsupportedFormat(other)
        }
    }

    public func decode(_ bytes: [UInt8], request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        switch try Self.format(of: bytes) {
        case .jpeg: try JPEGDecoder().decode(bytes, request: request)
        case .png: try PNGDecoder().decode(bytes, request: request)
        case let other: throw .unsupportedFormat(other)
        }
    }

    /// The sniffed format; names and content types are never trusted.
    static func format(of bytes: [UInt8]) throws(ImageDecodingError) -> ImageFormat {
        if bytes.isEmpty { throw .empty }
        guard let format = ImageFormat.sniff(bytes) else { throw .notAnImage }
        return format
    }
}
