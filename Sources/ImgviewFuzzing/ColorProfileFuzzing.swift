import ImgviewCodecs
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An ICC profile, or a file that carries one, through what reads it: the Swift tag walk that
/// names it (`info`), the locators that find it in JPEG, PNG, WebP, TIFF and HEIF (through
/// `inspect`), and Little CMS converting pixels with it, as RGB and as a CMYK JPEG's ink (lcms
/// itself is not coverage-guided).
enum ColorProfileFuzzing {
    private static let decoder = ImageDecoder()

    static func run(_ bytes: [UInt8]) {
        check(.icc(bytes))
        if let header = try? decoder.inspect(Data(bytes)), let profile = header.colorProfile { check(profile) }
    }

    private static func check(_ profile: EmbeddedColorProfile) {
        TerminalSafety.requireSafe(profile.name, "a profile's name")
        precondition(profile.name.count <= 64, "a name too long for a line of `info`")
        let pixels = PixelBuffer(width: 4, height: 4, filledWith: (200, 100, 50, 128))
        var image = DecodedImage(header: ImageHeader(format: .png, storedWidth: 4, storedHeight: 4, orientation: .up), pixels: pixels)
        ColorManagement.convert(&image, from: profile)
        precondition(image.pixels.width == 4 && image.pixels.height == 4, "conversion changed the size")
        precondition(stride(from: 3, to: 64, by: 4).allSatisfy { image.pixels.bytes[$0] == 128 }, "conversion changed alpha")
        if let warning = image.warning { TerminalSafety.requireSafe(warning, "a colour warning") }
        // A CMYK JPEG's ink goes through the profile (or the formula, when it cannot): colours, opaque.
        for inverted in [false, true] {
            var ink = PixelBuffer(width: 4, height: 4, filledWith: (10, 200, 30, 128))
            let warning = ColorManagement.convertCMYK(&ink, inverted: inverted, profile: profile)
            precondition(ink.width == 4 && ink.height == 4 && ink.bytes.count == 64, "CMYK conversion changed the size")
            precondition(stride(from: 3, to: 64, by: 4).allSatisfy { ink.bytes[$0] == 255 }, "CMYK converted to a colour not opaque")
            if let warning { TerminalSafety.requireSafe(warning, "a CMYK warning") }
        }
    }
}
