import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The decoder the application uses: hands the bytes to the decoder for the format their probe
/// found. The decoders whose libraries are heavy (AVIF, TIFF, HEIC, JPEG XL, SVG) open them the
/// first time they are asked, so a command pays only for the formats it meets.
public struct ImageDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        var header = try Self.decoder(for: probe.format).inspect(bytes, probe: probe)
        if header.colorProfile == nil {
            header.colorProfile = ColorProfileLocator.profile(in: bytes, format: probe.format)
        }
        return header
    }

    /// The image in sRGB: decoded by its format's decoder, then converted from the colour space
    /// it declares (the decoder's finding, else the header's).
    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        var image = try Self.decoder(for: header.format).decode(bytes, header: header, request: request)
        // A TIFF's pages and a JPEG XL (whose lossy images libjxl converts itself) say their own.
        if image.colorProfile == nil, header.format != .tiff, header.format != .jxl { image.colorProfile = header.colorProfile }
        if let profile = image.colorProfile { ColorManagement.convert(&image, from: profile) }
        return image
    }

    /// The decoder for a format.
    static func decoder(for format: ImageFormat) -> any ImageDecoding {
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
        case .svg: SVGDecoder()
        }
    }

    /// The formats whose header is the probe's: the ones with a library to open (AVIF, TIFF, HEIC,
    /// JPEG XL, SVG) are inspected on a worker thread.
    public func inspectsHeadersOnly(_ format: ImageFormat) -> Bool {
        switch format {
        case .jpeg, .png, .gif, .webp, .bmp, .ico, .qoi: true
        case .avif, .tiff, .heic, .jxl, .svg: false
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
