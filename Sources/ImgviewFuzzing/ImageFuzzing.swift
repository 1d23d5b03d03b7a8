import ImgviewCodecs
import ImgviewCore

/// Image bytes through everything that reads them before a user sees a preview.
enum ImageFuzzing {
    private static let decoder = ImageDecoder()
    /// Small enough that one input decodes in milliseconds, large enough for real images' headers.
    private static let maxPixelCount = 1 << 20
    private static let renderers = [
        PreviewRenderer(options: RenderOptions(columns: 24, rows: 8, mode: .blocks, colors: .full)),
        PreviewRenderer(options: RenderOptions(columns: 24, rows: 8, mode: .blocks, colors: .twoFiftySix)),
        PreviewRenderer(options: RenderOptions(columns: 24, rows: 8, mode: .ascii, colors: .none)),
    ]

    static func run(_ bytes: [UInt8]) {
        let format = ImageFormat.sniff(bytes)
        if let format { checkCompleteness(bytes, format: format) }
        let dimensions = ImageDimensions.read(bytes)
        if dimensions != nil { precondition(format != nil, "dimensions read from bytes with no image signature") }
        _ = ExifReader.orientation(in: bytes)

        let header: ImageHeader
        do {
            header = try decoder.inspect(bytes)
        } catch {
            TerminalSafety.requireSafe(error.message, "inspect error")
            return
        }
        precondition(header.storedWidth > 0 && header.storedHeight > 0, "header with an empty size")
        let request = DecodeRequest(minimumSize: (width: 48, height: 32), maxPixelCount: maxPixelCount)
        let image: DecodedImage
        do {
            image = try decoder.decode(bytes, request: request)
        } catch {
            TerminalSafety.requireSafe(error.message, "decode error")
            if case .tooLarge = error {
                precondition(header.storedWidth * header.storedHeight > maxPixelCount, "a small image refused as too large")
            }
            return
        }
        precondition(image.pixels.width * image.pixels.height <= maxPixelCount, "decoded past the pixel limit")
        if let warning = image.warning { TerminalSafety.requireSafe(warning, "decode warning") }
        for renderer in renderers {
            let grid = renderer.render(image.pixels)
            precondition(grid.columns <= 24 && grid.rows <= 8, "preview larger than its box")
            _ = AnsiPrinter().text(for: grid)
        }
    }
}
