import Foundation
import ImgviewSupport
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// CMYK and YCCK JPEGs, as print work and some stock photos come: 04_coffee converted to a press
/// profile's ink by ImageMagick, the profile embedded, Adobe's inverted ink with its APP14
/// marker (scripts/generate-format-fixtures.sh cmyk). Decoded, they must be what Little CMS makes
/// of them (Pillow's, the reference), and as near the sRGB original as that reference is.
@Suite("CMYK JPEGs through their profile")
struct CMYKJPEGTests {
    let decoder = ImageDecoder()

    func decode(_ bytes: Data) throws -> DecodedImage {
        try decoder.decode(bytes, request: DecodeRequest())
    }

    /// The ink libjpeg decodes, before any conversion, at full size.
    func ink(_ bytes: Data) throws -> (pixels: PixelBuffer, hasAdobeMarker: Bool) {
        try JPEGSession.with(bytes) { session throws(ImageDecodingError) in
            let frame = try session.readHeader()
            #expect(frame.isCMYK)
            let pixels = try session.decodeRows(scaleInEighths: 8, cmyk: true, cancellation: CancellationFlag())
            return (pixels, frame.hasAdobeMarker)
        }
    }

    /// Per pixel, YCCK is further off: its chroma is stored at half the size (the reference is of the CMYK file).
    @Test(arguments: [("coffee-cmyk.jpg", 3.0, 48), ("coffee-ycck.jpg", 5.0, 64)])
    func aCMYKPhotoIsConvertedThroughItsProfile(name: String, meanLimit: Double, largestLimit: Int) throws {
        let image = try decode(try Fixtures.data(name))
        #expect(image.warning == nil)
        #expect(try decoder.inspect(try Fixtures.data(name)).colorProfile?.name == "FOGRA39 (imgview test)", "info names it")
        // Against Little CMS through Pillow, a decoder of its own: libjpeg's exact DCT and smooth
        // upsampling where imgview's previews use the fast ones, and its own build of Little CMS.
        let reference = try PNGDecoder().decode(try Fixtures.data("coffee-cmyk-reference.png"), request: DecodeRequest())
        #expect(image.pixels.width == reference.pixels.width && image.pixels.height == reference.pixels.height)
        let differences = zip(image.pixels.bytes, reference.pixels.bytes).enumerated().filter { $0.offset % 4 != 3 }.map {
            abs(Int($0.element.0) - Int($0.element.1))
        }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        let largest = differences.max() ?? 0
        #expect(mean <= meanLimit && largest <= largestLimit, "per channel: mean \(mean), largest \(largest)")
        let toReference = ColorDifference.meanDeltaE(
            ColorManagementTests.preview(reference.pixels), ColorManagementTests.preview(image.pixels), stride: 3)
        #expect(toReference <= 1.5, "mean ΔE00 \(toReference) from the reference")
        // The press gamut itself keeps the reference 2.2 from the sRGB original; the preview adds next to nothing to that.
        let original = ColorManagementTests.preview(try decode(try Fixtures.data("coffee.png")).pixels)
        let toOriginal = ColorDifference.meanDeltaE(original, ColorManagementTests.preview(image.pixels), stride: 3)
        let referenceToOriginal = ColorDifference.meanDeltaE(original, ColorManagementTests.preview(reference.pixels), stride: 3)
        #expect(
            toOriginal <= referenceToOriginal + 0.3, "mean ΔE00 \(toOriginal) from the original, the reference's \(referenceToOriginal)")
    }

    /// Without its profile, CMYK is drawn by the formula browsers use: far from the reference
    /// for a press profile's ink, so the test above can fail.
    @Test func withoutItsProfileTheFormulaIsUsed() throws {
        let stripped = JPEGSegments.removing(0xE2, from: try Fixtures.data("coffee-cmyk.jpg"))
        let image = try decode(stripped)
        #expect(image.warning == nil)
        #expect(try decoder.inspect(stripped).colorProfile == nil)
        var expected = try ink(stripped)
        #expect(expected.hasAdobeMarker)
        ColorManagement.deviceCMYK(&expected.pixels, inverted: true)
        #expect(image.pixels == expected.pixels)
        let reference = try PNGDecoder().decode(try Fixtures.data("coffee-cmyk-reference.png"), request: DecodeRequest())
        let difference = ColorDifference.meanDeltaE(
            ColorManagementTests.preview(reference.pixels), ColorManagementTests.preview(image.pixels), stride: 3)
        #expect(difference > 2, "mean ΔE00 \(difference) without the profile")
    }

    /// Adobe's APP14 marker says the ink is stored inverted; without it, it is stored plainly.
    @Test func theAdobeMarkerSaysTheInkIsInverted() throws {
        let plain = JPEGSegments.removing(0xEE, from: JPEGSegments.removing(0xE2, from: try Fixtures.data("coffee-cmyk.jpg")))
        var expected = try ink(plain)
        #expect(!expected.hasAdobeMarker)
        ColorManagement.deviceCMYK(&expected.pixels, inverted: false)
        #expect(try decode(plain).pixels == expected.pixels)
        // One pixel by hand: no ink is white, full black is black, either way it is stored.
        var pixels = PixelBuffer(width: 2, height: 1, bytes: [0, 0, 0, 0, 255, 255, 255, 0])
        ColorManagement.deviceCMYK(&pixels, inverted: false)
        #expect(pixels.bytes == [255, 255, 255, 255, 0, 0, 0, 255])
        pixels = PixelBuffer(width: 2, height: 1, bytes: [255, 255, 255, 255, 128, 255, 255, 0])
        ColorManagement.deviceCMYK(&pixels, inverted: true)
        #expect(pixels.bytes == [255, 255, 255, 255, 0, 0, 0, 255])
    }

    /// A damaged profile, or one that is not CMYK, is not used: the formula is, with a warning.
    @Test func aProfileThatCannotBeUsedFallsBackToTheFormula() throws {
        var bytes = [UInt8](try Fixtures.data("coffee-cmyk.jpg"))
        let signature = try #require(bytes.indices.first { Array(bytes[$0..<($0 + 4)]) == Array("acsp".utf8) })
        bytes.replaceSubrange(signature..<(signature + 4), with: Array("xxxx".utf8))
        let damaged = try decode(Data(bytes))
        #expect(damaged.warning == "CMYK shown without its profile: the embedded ICC profile is damaged")
        var expected = try ink(Data(bytes))
        ColorManagement.deviceCMYK(&expected.pixels, inverted: true)
        #expect(damaged.pixels == expected.pixels)

        let p3 = EmbeddedColorProfile.icc(Array(try Fixtures.data("DisplayP3.icc")))
        var ink = try ink(try Fixtures.data("coffee-cmyk.jpg")).pixels
        let warning = ColorManagement.convertCMYK(&ink, inverted: true, profile: p3)
        #expect(warning == "CMYK shown without its profile: the embedded one is Display P3, not CMYK")
    }

    /// Partial pictures of a CMYK file arriving are converted too, as the final one is.
    @Test func partialPicturesAreConvertedAsTheWholeIs() throws {
        let bytes = try Fixtures.data("coffee-cmyk.jpg")
        let whole = try decode(bytes)
        let stream = try #require(decoder.makeProgressiveDecoder(for: .jpeg) { _ in DecodeRequest() })
        let last = try #require(try stream.update(with: bytes))
        #expect(last.warning == nil)
        #expect(last.pixels == whole.pixels)
    }
}
