import ImgviewCodecs
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    static func run(_ raw: [UInt8]) {
        let bytes = Data(raw)
        let format = ImageFormat.sniff(bytes)
        if let format { checkCompleteness(raw, format: format) }
        let probe = ImageProbe.read(ArrayBytes(raw))
        precondition((probe != nil) == (format != nil), "a probe of bytes with no image signature, or none of an image")
        if let probe, let whole = ImageProbe.read(DataBytes(bytes), through: .whole) {
            var header = whole
            header.completeness = probe.completeness
            // Read as far as the header or to the end, the probe says the same of what it is.
            precondition(
                header.format == probe.format && header.storedSize == probe.storedSize && header.orientation == probe.orientation
                    && header.hasColorProfile == probe.hasColorProfile,
                "the header probe and the whole probe disagree")
        }
        // Whole, and cut where the browser cuts it when sorting by date.
        _ = ExifDate.taken(in: ArrayBytes(raw))
        _ = ExifDate.taken(in: ArrayBytes(Array(raw.prefix(4096))))
        // The camera fields `info` prints: whatever the bytes, short lines once sanitised.
        if let camera = ExifCamera.read(ArrayBytes(raw)) {
            for text in [camera.cameraText, camera.lens, camera.takenText, camera.exposureText].compactMap({ $0 }) {
                TerminalSafety.requireSafe(TerminalText.sanitized(text), "a camera field")
                precondition(text.utf8.count <= 300, "a camera field past its 128-byte cap")
            }
        }

        guard let header = FormatFuzzing.inspectChecked(bytes, with: decoder) else { return }
        let request = DecodeRequest(
            minimumSize: (width: 48, height: 32), maxPixelCount: maxPixelCount, animationLimits: FormatFuzzing.limits)
        guard let image = FormatFuzzing.decodeChecked(bytes, header: header, request: request, with: decoder) else { return }
        precondition(image.pixels.width * image.pixels.height <= maxPixelCount, "decoded past the pixel limit")
        // The smallest decode too: a progressive JPEG at 1/8 scale takes the DC-only path.
        if let smallest = try? decoder.decode(
            bytes, header: header, request: DecodeRequest(minimumSize: (1, 1), maxPixelCount: maxPixelCount))
        {
            precondition(smallest.pixels.width <= image.pixels.width, "a smaller decode came out larger")
            if let warning = smallest.warning { TerminalSafety.requireSafe(warning, "decode warning") }
        }
        // As a grid's cell asks: a JPEG's EXIF thumbnail may stand in for the image.
        _ = ExifThumbnail.range(in: ArrayBytes(raw))
        if let thumbnail = try? decoder.decode(
            bytes, header: header,
            request: DecodeRequest(minimumSize: (48, 32), maxPixelCount: maxPixelCount, allowsEmbeddedThumbnail: true)),
            let warning = thumbnail.warning
        {
            TerminalSafety.requireSafe(warning, "decode warning")
        }
        for renderer in renderers {
            let grid = renderer.render(image.pixels)
            precondition(grid.columns <= 24 && grid.rows <= 8, "preview larger than its box")
            _ = AnsiPrinter().text(for: grid)
        }
    }
}
