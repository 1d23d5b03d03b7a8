import Foundation
import ImgviewImaging

/// The decoder the application uses: sniffs the format from the bytes and hands them to the
/// decoder for it. A format imgview recognises but cannot decode still gets a header when its
/// size can be read (so `info` describes it); decoding it is an "unsupported format" error
/// that names it.
public struct ImageDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data) throws(ImageDecodingError) -> ImageHeader {
        let format = try Self.format(of: bytes)
        if let decoder = Self.decoder(for: format) { return try decoder.inspect(bytes) }
        guard let size = ImageDimensions.read([UInt8](bytes)) else { throw .unsupportedFormat(format) }
        // The size read is upright already.
        return ImageHeader(format: format, storedWidth: size.width, storedHeight: size.height, orientation: .up)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        guard let decoder = Self.decoder(for: header.format) else { throw .unsupportedFormat(header.format) }
        return try decoder.decode(bytes, header: header, request: request)
    }

    /// The decoder for a format, nil for those imgview only recognises.
    static func decoder(for format: ImageFormat) -> (any ImageDecoding)? {
        switch format {
        case .jpeg: JPEGDecoder()
        case .png: PNGDecoder()
        case .gif: GIFDecoder()
        case .webp: WebPDecoder()
        case .avif: AVIFDecoder()
        case .bmp: BMPDecoder()
        case .ico: ICODecoder()
        case .qoi: QOIDecoder()
        case .tiff: TIFFDecoder()
        case .heic: HEIFDecoder()
        case .jxl: JXLDecoder()
        case .svg: nil
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
