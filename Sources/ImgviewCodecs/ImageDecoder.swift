import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The decoder the application uses: hands the bytes to the decoder for the format their probe
/// found. A format imgview recognises but cannot decode still gets a header when its size can be
/// read (so `info` describes it); decoding it is an "unsupported format" error that names it.
public struct ImageDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        if let decoder = Self.decoder(for: probe.format) { return try decoder.inspect(bytes, probe: probe) }
        guard let header = ImageHeader(probe: probe) else { throw .unsupportedFormat(probe.format) }
        return header
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
        case .tiff, .heic, .jxl, .svg, .ico, .qoi: nil
        }
    }

    public func makeProgressiveDecoder(for format: ImageFormat, sizing: @escaping ProgressiveSizing) -> (any ProgressiveImageDecoder)? {
        switch format {
        case .jpeg: try? JPEGStreamDecoder(sizing: sizing)
        case .png: PNGStreamDecoder(sizing: sizing)
        default: nil
        }
    }
}
