import ImgviewCodecs
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One format's decoder on any bytes, with what must hold of every image and animation it returns.
///
/// The decoder is called directly, not through sniffing, so mutated signatures still reach it;
/// limits are small so that an input decodes in milliseconds, and tight enough that frame
/// bombs run into them.
enum FormatFuzzing {
    static let maxPixelCount = 1 << 20
    static let limits = AnimationLimits(maxFrameCount: 64, maxComposedPixels: 1 << 22, maxKeptPixels: 1 << 18)
    private static let renderer = PreviewRenderer(options: RenderOptions(columns: 16, rows: 6, mode: .blocks, colors: .twoFiftySix))

    static func run(_ raw: [UInt8], with decoder: any ImageDecoding, format: ImageFormat, maxPixelCount: Int = maxPixelCount) {
        let bytes = Data(raw)
        ImageFuzzing.checkCompleteness(raw, format: format)
        guard let header = inspectChecked(bytes, with: decoder, as: format) else { return }
        precondition(header.format == format, "\(format) decoder reported \(header.format)")
        if let summary = header.animation {
            precondition(summary.frameCount > 1 && summary.loopCount >= 0 && summary.duration >= .zero, "implausible summary \(summary)")
        }
        // Alternate between full size and a reduced one, as `show` and the browser ask.
        let minimum = raw.count % 2 == 0 ? nil : (width: 12, height: 8)
        // One input in three gets 1 MB to hold at full size, so that canvases past it take the
        // decoders' first-frame paths and whole-image decodes past it are refused.
        let request = DecodeRequest(
            minimumSize: minimum, maxPixelCount: maxPixelCount, maxDecodeBytes: raw.count % 3 == 0 ? 1 << 20 : nil, animationLimits: limits)
        guard let image = decodeChecked(bytes, header: header, request: request, with: decoder) else { return }
        let (width, height) = header.uprightSize
        precondition(image.pixels.width <= width && image.pixels.height <= height, "decoded larger than the header says")
        // The pixel limit wins over the minimum: a long, thin SVG asked to cover 12×8 may not fit.
        if let minimum, Self.covering(minimum, of: (width, height)) <= Double(maxPixelCount) * 0.9 {
            precondition(
                image.pixels.width >= min(minimum.width, width) && image.pixels.height >= min(minimum.height, height),
                "scaled below the minimum")
        }
        if let animation = image.animation {
            let frames = animation.frames
            precondition(frames.count >= 2 && frames.count <= limits.maxFrameCount, "\(frames.count) frames kept")
            precondition(frames[0].pixels == image.pixels, "pixels are not the first frame")
            precondition(
                frames.allSatisfy { $0.pixels.width == image.pixels.width && $0.pixels.height == image.pixels.height },
                "frames differ in size")
            precondition(frames.allSatisfy { $0.delay > .milliseconds(10) }, "a frame shown for 10 ms or less")
            precondition(
                frames.count * image.pixels.width * image.pixels.height <= max(limits.maxKeptPixels, width * height), "kept past the limit")
            _ = AnsiPrinter().text(for: renderer.render(frames[frames.count - 1].pixels))
        }
        _ = AnsiPrinter().text(for: renderer.render(image.pixels))
    }

    /// How many pixels the smallest size of an image's shape that covers `minimum` has.
    private static func covering(_ minimum: (width: Int, height: Int), of size: (width: Int, height: Int)) -> Double {
        let scale = min(1, max(Double(minimum.width) / Double(size.width), Double(minimum.height) / Double(size.height)))
        return Double(size.width) * scale * Double(size.height) * scale
    }

    /// The header, or nil after checking that the error is one safe line; a header has a size.
    /// With `format`, the bytes are probed as that format whatever they start with, so that a
    /// mutated signature still reaches the decoder.
    static func inspectChecked(_ bytes: Data, with decoder: any ImageDecoding, as format: ImageFormat? = nil) -> ImageHeader? {
        do {
            let header =
                if let format, !bytes.isEmpty {
                    try decoder.inspect(bytes, probe: ImageProbe.read(DataBytes(bytes), as: format, through: .header))
                } else {
                    try decoder.inspect(bytes)
                }
            precondition(header.storedWidth > 0 && header.storedHeight > 0, "header with an empty size")
            return header
        } catch {
            TerminalSafety.requireSafe(error.message, "inspect error")
            return nil
        }
    }

    /// The decoded image, or nil after checking that the error is one a user may see: one safe
    /// line, and "too large" only for a header that does declare too many pixels.
    static func decodeChecked(
        _ bytes: Data, header: ImageHeader, request: DecodeRequest, with decoder: any ImageDecoding
    ) -> DecodedImage? {
        do {
            let image = try decoder.decode(bytes, header: header, request: request)
            if let warning = image.warning { TerminalSafety.requireSafe(warning, "decode warning") }
            return image
        } catch {
            TerminalSafety.requireSafe(error.message, "decode error")
            if case .tooLarge = error {
                let (pixels, overflow) = header.storedWidth.multipliedReportingOverflow(by: header.storedHeight)
                precondition(overflow || pixels > request.maxPixelCount, "a small image refused as too large")
            }
            if case .tooLargeToDecode(_, _, _, let bytes, let limit) = error {
                precondition(bytes > limit, "refused for memory within the limit")
            }
            return nil
        }
    }
}
