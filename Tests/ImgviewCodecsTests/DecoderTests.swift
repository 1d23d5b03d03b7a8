import ImgviewCodecs
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging

/// Every fixture shows the same 16×12 picture: top-left red, top-right green, bottom blue.
@Suite("Decoding JPEG and PNG")
struct DecoderTests {
    let decoder = ImageDecoder()

    func decode(_ name: String, request: DecodeRequest = DecodeRequest()) throws -> DecodedImage {
        try decoder.decode(try Fixtures.data(name), request: request)
    }

    func expectPicture(_ pixels: PixelBuffer, transparentBlue: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        QuadrantPicture.expect(pixels, transparentBottom: transparentBlue, sourceLocation: sourceLocation)
    }

    @Test(arguments: ["rgb.png", "interlaced.png", "rgba16.png", "palette.png", "rgb.jpg", "cmyk.jpg"])
    func decodesColourVariants(name: String) throws {
        let image = try decode(name)
        #expect(image.warning == nil)
        expectPicture(image.pixels)
    }

    @Test(arguments: ["palette-trns.png", "rgb-trns.png"])
    func appliesTRNSTransparency(name: String) throws {
        expectPicture(try decode(name).pixels, transparentBlue: true)
    }

    @Test func decodesGreyWithAlpha() throws {
        let pixels = try decode("gray-alpha.png").pixels
        #expect(pixels.pixel(x: 2, y: 2) == (255, 255, 255, 255))
        #expect(pixels.pixel(x: 13, y: 2).3 == 0)
    }

    @Test(arguments: ["gray16.png", "gray.jpg"])
    func decodesGreyRamps(name: String) throws {
        let pixels = try decode(name).pixels
        let left = pixels.pixel(x: 0, y: 6)
        let right = pixels.pixel(x: 15, y: 6)
        #expect(left.0 < 20 && right.0 > 235)
        #expect(left.0 == left.1 && left.1 == left.2, "grey stays grey")
    }

    @Test(arguments: 1...8)
    func honoursEveryExifOrientation(orientation: Int) throws {
        let bytes = try Fixtures.data("orient\(orientation).jpg")
        #expect(try decoder.inspect(bytes).orientation.rawValue == orientation)
        expectPicture(try decoder.decode(bytes, request: DecodeRequest()).pixels)
    }

    @Test func inspectReportsStoredAndUprightSize() throws {
        let header = try decoder.inspect(try Fixtures.data("orient6.jpg"))
        #expect(header.format == .jpeg)
        #expect(header.storedWidth == 12 && header.storedHeight == 16)
        #expect(header.uprightSize == (16, 12))
    }

    /// PNG rows go through a downscaler: a reduced size comes out directly, the same for an
    /// interlaced file as for a plain one, with the picture intact.
    @Test(arguments: ["rgb.png", "interlaced.png"])
    func pngDecodesReducedWithMemoryForTheOutputOnly(name: String) throws {
        let image = try decode(name, request: DecodeRequest(minimumSize: (8, 6)))
        #expect(image.pixels.width == 8 && image.pixels.height == 6)
        let plain = try decode("rgb.png", request: DecodeRequest(minimumSize: (8, 6)))
        #expect(image.pixels == plain.pixels)
        let red = image.pixels.pixel(x: 1, y: 1)
        let green = image.pixels.pixel(x: 6, y: 1)
        let blue = image.pixels.pixel(x: 2, y: 4)
        #expect(red.0 > 200 && red.1 < 60 && green.1 > 200 && green.0 < 60 && blue.2 > 200 && blue.0 < 60)
        #expect(try decode(name, request: DecodeRequest(minimumSize: (5, 4))).pixels.width == 6, "a factor of 3 still covers 5")
    }

    @Test func jpegDecodesAtTheSmallestCoveringScale() throws {
        // photo.jpg is 128×96; libjpeg scales by 1/8, 2/8, 3/8, ...
        #expect(try decode("photo.jpg", request: DecodeRequest(minimumSize: (16, 12))).pixels.width == 16)
        #expect(try decode("photo.jpg", request: DecodeRequest(minimumSize: (17, 12))).pixels.width == 32)
        #expect(try decode("photo.jpg", request: DecodeRequest(minimumSize: (40, 10))).pixels.width == 48)
        #expect(try decode("photo.jpg", request: DecodeRequest(minimumSize: (500, 500))).pixels.width == 128, "never enlarges")
        #expect(try decode("photo.jpg").pixels.width == 128)
    }

    @Test func scaleChoiceUsesTheStoredAxesForRotatedImages() throws {
        // orient6 is stored 12×16 and shown 16×12: a minimum of 16×12 upright must keep full size.
        let image = try decode("orient6.jpg", request: DecodeRequest(minimumSize: (16, 12)))
        #expect(image.pixels.width == 16 && image.pixels.height == 12)
    }
}

@Suite("Encoding PNG for the pixel protocols")
struct PNGEncoderTests {
    @Test func aWrittenPNGDecodesToTheSamePixels() throws {
        var bytes: [UInt8] = []
        for y in 0..<23 { for x in 0..<37 { bytes += [UInt8(x * 6), UInt8(y * 11), UInt8((x * y) % 256)] } }
        let image = RGBImage(width: 37, height: 23, bytes: bytes)
        let png = try PNGEncoder().png(image)
        let decoded = try ImageDecoder().decode(png, request: DecodeRequest())
        #expect(decoded.header.format == .png && decoded.pixels.width == 37 && decoded.pixels.height == 23)
        // Drop the alpha channel (all opaque) and compare the rest byte for byte.
        let rgba = decoded.pixels.bytes
        let alpha = stride(from: 3, to: rgba.count, by: 4).map { rgba[$0] }
        let rgb = rgba.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        #expect(alpha.allSatisfy { $0 == 255 })
        #expect(rgb == bytes)
    }
}
