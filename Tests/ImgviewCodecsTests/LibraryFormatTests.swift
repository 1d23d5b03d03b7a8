import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// TIFF, HEIC, JPEG XL and SVG: the formats whose libraries are opened on first use, as Debian's
/// own encoders write them (scripts/generate-format-fixtures.sh).
@Suite("Decoding TIFF, HEIC, JPEG XL and SVG")
struct LibraryFormatTests {
    let decoder = ImageDecoder()

    func decode(_ name: String, request: DecodeRequest = DecodeRequest()) throws -> DecodedImage {
        try decoder.decode(try Fixtures.data(name), request: request)
    }

    @Test(arguments: ["q.tif", "q-lzw.tif", "q-zip.tif", "q-jpeg.tif", "q-tiled.tif", "q-icc.tif"])
    func decodesEveryVariant(name: String) throws {
        let image = try decode(name)
        #expect(image.warning == nil)
        #expect(image.animation == nil && image.header.animation == nil && image.header.pageCount == 1)
        QuadrantPicture.expect(image.pixels)
    }

    @Test(arguments: ["q-alpha.tif"])
    func composesTransparency(name: String) throws {
        QuadrantPicture.expect(try decode(name).pixels, transparentBottom: true)
    }

    @Test(arguments: [("hopper.tif", 0.0)])
    func photographsDecodeCloseToTheirOriginal(name: String, tolerance: Double) throws {
        let reference = try decode("hopper.png").pixels
        let image = try decode(name)
        #expect(image.warning == nil)
        #expect(QuadrantPicture.meanDifference(image.pixels, reference) <= tolerance)
        // Rows go into a RowDownscaler, as PNG's do: 64×75 just covering 8×9 is an eighth.
        let small = try decode(name, request: DecodeRequest(minimumSize: (8, 9)))
        #expect(small.pixels.width == 8 && small.pixels.height == 10)
    }

    @Test func tiffOrientationIsHonoured() throws {
        let bytes = try Fixtures.data("q-orient6.tif")
        let header = try decoder.inspect(bytes)
        #expect(header.orientation == .right && header.uprightSize == (12, 16))
        let pixels = try decoder.decode(bytes, header: header, request: DecodeRequest()).pixels
        #expect(pixels.width == 12 && pixels.height == 16)
        // Turned a quarter clockwise: red (top left) to the top right, blue to the left.
        #expect(QuadrantPicture.near(pixels.pixel(x: 9, y: 2), QuadrantPicture.red))
        #expect(QuadrantPicture.near(pixels.pixel(x: 2, y: 8), QuadrantPicture.blue))
        #expect(ImageDimensions.read([UInt8](bytes)) == ImageDimensions(width: 12, height: 16), "the probe agrees")
    }

    @Test func anEmbeddedICCProfileIsHandedOn() throws {
        let image = try decode("q-icc.tif")
        guard case .icc(let profile) = image.colorProfile else {
            Issue.record("no profile: \(String(describing: image.colorProfile))")
            return
        }
        #expect(profile.count == 20420 && Array(profile[36..<40]) == Array("acsp".utf8))
        #expect(try decode("q-lzw.tif").colorProfile == nil)
    }

    /// pages.tif: the picture, then turned one step, then two; each page decoded on its own.
    @Test func tiffPagesAreDecodedOneAtATime() throws {
        let bytes = try Fixtures.data("pages.tif")
        let header = try decoder.inspect(bytes)
        #expect(header.pageCount == 3 && header.animation == nil)
        for page in 0..<3 {
            let image = try decoder.decode(bytes, header: header, request: DecodeRequest(page: page))
            #expect(image.page == page && image.header.pageCount == 3)
            QuadrantPicture.expect(image.pixels, colours: QuadrantPicture.animationFrames[page])
        }
        let past = try decoder.decode(bytes, header: header, request: DecodeRequest(page: 7))
        #expect(past.page == 2, "past the last page, the last")
    }

    @Test func aReducedResolutionCopyIsNotAPage() throws {
        let bytes = try Fixtures.data("reduced.tif")
        let header = try decoder.inspect(bytes)
        #expect(header.pageCount == 2)
        let second = try decoder.decode(bytes, header: header, request: DecodeRequest(page: 1))
        QuadrantPicture.expect(second.pixels, colours: QuadrantPicture.animationFrames[2])
    }
}
