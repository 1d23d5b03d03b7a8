import Foundation
import ImgviewCodecs
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging
@testable import ImgviewSupport

/// Stills in every new format and variant, as Debian's encoders write them
/// (scripts/generate-format-fixtures.sh).
@Suite("Decoding GIF, WebP, AVIF, BMP, QOI and ICO")
struct FormatDecoderTests {
    let decoder = ImageDecoder()

    func decode(_ name: String, request: DecodeRequest = DecodeRequest()) throws -> DecodedImage {
        try decoder.decode(try Fixtures.data(name), request: request)
    }

    @Test(arguments: [
        // GIF: plain and interlaced.
        "q.gif", "q-interlaced.gif",
        // WebP: lossy and lossless.
        "q-lossy.webp", "q-lossless.webp",
        // AVIF: 8 and 10 bits a sample.
        "q-8bit.avif", "q-10bit.avif",
        // BMP: 24-bit bottom-up and top-down, 32-bit with a padding byte, 16-bit (5-6-5 masks), 4-bit palette, RLE8.
        "q-24.bmp", "q-24-topdown.bmp", "q-32-padding.bmp", "q-16.bmp", "q-4.bmp", "q-rle8.bmp",
        // QOI: three channels; ICO: a 32-bit bitmap, a PNG beside a smaller bitmap; CUR.
        "q.qoi", "q.ico", "q-png.ico", "q.cur",
    ])
    func decodesEveryVariant(name: String) throws {
        let image = try decode(name)
        #expect(image.warning == nil)
        #expect(image.animation == nil && image.header.animation == nil, "a still")
        QuadrantPicture.expect(image.pixels)
        let header = try decoder.inspect(try Fixtures.data(name))
        #expect(header.storedWidth == 16 && header.storedHeight == 12 && header.orientation == .up)
    }

    @Test(arguments: ["q-transparent.gif", "q-alpha.webp", "q-alpha.avif", "q-32-alpha.bmp", "q-alpha.qoi", "q-4bit.ico"])
    func composesTransparency(name: String) throws {
        let image = try decode(name)
        QuadrantPicture.expect(image.pixels, transparentBottom: true)
    }

    @Test func avifRotationIsHonoured() throws {
        let bytes = try Fixtures.data("q-irot.avif")
        let header = try decoder.inspect(bytes)
        #expect(header.orientation == .left && header.uprightSize == (12, 16))
        let pixels = try decoder.decode(bytes, header: header, request: DecodeRequest()).pixels
        #expect(pixels.width == 12 && pixels.height == 16)
        // A quarter turn anticlockwise: green (top right) to the top left, red to the bottom left, blue to the right.
        #expect(QuadrantPicture.near(pixels.pixel(x: 2, y: 2), QuadrantPicture.green))
        #expect(QuadrantPicture.near(pixels.pixel(x: 2, y: 13), QuadrantPicture.red))
        #expect(QuadrantPicture.near(pixels.pixel(x: 9, y: 8), QuadrantPicture.blue))
    }

    /// 01_grace_hopper.jpg at 64×75 in each format, against the PNG it was made from. GIF has 256
    /// colours, dithered; the rest are lossy at ordinary qualities.
    @Test(arguments: [("hopper.gif", 10.0), ("hopper.webp", 5.0), ("hopper.avif", 4.0), ("hopper-8.bmp", 6.0), ("hopper.qoi", 0.0)])
    func photographsDecodeCloseToTheirOriginal(name: String, tolerance: Double) throws {
        let reference = try decode("hopper.png").pixels
        let image = try decode(name)
        #expect(image.warning == nil)
        let difference = QuadrantPicture.meanDifference(image.pixels, reference)
        #expect(difference <= tolerance, "mean difference \(difference)")
    }

    /// 64×75 covering twice 8×9 is a quarter, 16×19; QOI's rows go into a `RowDownscaler`, as PNG's
    /// do, which just covers it: an eighth, 8×10.
    @Test(arguments: [("hopper.gif", 4), ("hopper.webp", 4), ("hopper.avif", 4), ("hopper-8.bmp", 4), ("hopper.qoi", 8)])
    func scalesDownWhileDecoding(name: String, factor: Int) throws {
        let image = try decode(name, request: DecodeRequest(minimumSize: (8, 9)))
        #expect(image.pixels.width == (64 + factor - 1) / factor && image.pixels.height == (75 + factor - 1) / factor)
        let reference = try decode("hopper.png").pixels
        let reduced = reference.bytes.withUnsafeBufferPointer { PixelReducer.reduce($0, width: 64, height: 75, factor: factor) }
        #expect(QuadrantPicture.meanDifference(image.pixels, reduced) < 8)
        #expect(try decode(name, request: DecodeRequest(minimumSize: (500, 500))).pixels.width == 64, "never enlarges")
    }

    @Test func everyPreviewableFormatHasADecoder() throws {
        for (name, format) in [
            ("q.gif", ImageFormat.gif), ("q-lossy.webp", .webp), ("q-8bit.avif", .avif), ("q-24.bmp", .bmp), ("q.qoi", .qoi),
            ("q.ico", .ico), ("q.cur", .ico),
        ] {
            #expect(try decoder.inspect(try Fixtures.data(name)).format == format)
        }
    }

    @Test func qoiDeclaringLinearChannelsHandsThatOn() throws {
        let linear = try decode("q-linear.qoi")
        #expect(linear.colorProfile == .linearSRGB)
        QuadrantPicture.expect(linear.pixels)
        #expect(try decode("q.qoi").colorProfile == nil, "colour space 0 is sRGB")
    }

    /// The largest picture is shown, by the size its data declares: hopper.ico holds 48, 32 and 16
    /// pixels square; q-png.ico's PNG picture says 0×0 in the directory and is 16×12.
    @Test func anIconShowsItsLargestPicture() throws {
        let hopper = try Fixtures.data("hopper.ico")
        let header = try decoder.inspect(hopper)
        #expect(header.format == .ico && header.uprightSize == (48, 48))
        let image = try decoder.decode(hopper, header: header, request: DecodeRequest())
        #expect(image.pixels.width == 48 && image.warning == nil)
        #expect(ImageDimensions.read([UInt8](hopper)) == ImageDimensions(width: 48, height: 48), "the probe agrees")
        #expect(ImageDimensions.read([UInt8](try Fixtures.data("q-png.ico"))) == ImageDimensions(width: 16, height: 12))
        #expect(IconDirectory.read([UInt8](try Fixtures.data("q.cur")))?.kind == .cursor)
    }

    @Test(arguments: [
        "q.gif", "q-lossless.webp", "q-8bit.avif", "q-24.bmp", "anim.gif", "anim.webp", "anim.avif", "q.qoi", "q.ico", "q-png.ico",
        "anim.png",
    ])
    func aDecodeNobodyWaitsForStops(name: String) throws {
        let flag = CancellationFlag()
        flag.cancel()
        #expect(throws: ImageDecodingError.cancelled) {
            try decoder.decode(try Fixtures.data(name), request: DecodeRequest(cancellation: flag))
        }
    }
}
