import Foundation
import ImgviewCore

/// The decoder the application uses: sniffs the format from the bytes and hands them to
/// the JPEG or PNG decoder; every other format is a clear "unsupported" error.
public struct ImageDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data) throws(ImageDecodingError) -> ImageHeader {
        switch try Self.format(of: bytes) {
        case .jpeg: try JPEGDecoder().inspect(bytes)
        case .png: try PNGDecoder().inspect(bytes)
        case let other: throw .unsupportedFormat(other)
        }
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        switch header.format {
        case .jpeg: try JPEGDecoder().decode(bytes, header: header, request: request)
        case .png: try PNGDecoder().decode(bytes, header: header, request: request)
        case let other: throw .unsupportedFormat(other)
        }
    }

    public func makeProgressiveDecoder(for format: ImageFormat, sizing: @escaping ProgressiveSizing) -> (any ProgressiveImageDecoder)? {
        switch format {
        case .jpeg: try? JPEGStreamDecoder(sizing: sizing)
        case .png: PNGStreamDecoder(sizing: sizing)
        default: nil
        }
    }

    /// The sniffed format; names and content types are never trusted.
    static func format(of bytes: Data) throws(ImageDecodingError) -> ImageFormat {
        if bytes.isEmpty { throw .empty }
        guard let format = ImageFormat.sniff(bytes) else { throw .notAnImage }
        return format
    }
}
