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

    @Test(arguments: [
        "q.tif", "q-lzw.tif", "q-zip.tif", "q-jpeg.tif", "q-tiled.tif", "q-icc.tif", "q.heic", "q-icc.heic", "q.jxl", "q-lossy.jxl",
        "q-adobe.jxl",
    ])
    func decodesEveryVariant(name: String) throws {
        let image = try decode(name)
        #expect(image.warning == nil)
        #expect(image.animation == nil && image.header.animation == nil && image.header.pageCount == 1)
        QuadrantPicture.expect(image.pixels)
    }

    @Test(arguments: ["q-alpha.tif", "q-alpha.heic", "q-alpha.jxl"])
    func composesTransparency(name: String) throws {
        QuadrantPicture.expect(try decode(name).pixels, transparentBottom: true)
    }

    /// 64×75 covering 8×9: TIFF's rows go into a RowDownscaler as PNG's do, which just covers it
    /// (an eighth); HEIC's and JPEG XL's decoded images are kept at twice the size, as `PixelReducer` keeps it (a quarter).
    @Test(arguments: [("hopper.tif", 0.0, 8), ("hopper.heic", 4.0, 4), ("hopper.jxl", 4.0, 4)])
    func photographsDecodeCloseToTheirOriginal(name: String, tolerance: Double, factor: Int) throws {
        let reference = try decode("hopper.png").pixels
        let image = try decode(name)
        #expect(image.warning == nil)
        let difference = QuadrantPicture.meanDifference(image.pixels, reference)
        #expect(difference <= tolerance, "mean difference \(difference)")
        let small = try decode(name, request: DecodeRequest(minimumSize: (8, 9)))
        #expect(small.pixels.width == (64 + factor - 1) / factor && small.pixels.height == (75 + factor - 1) / factor)
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

    @Test(arguments: ["q-icc.tif", "q-icc.heic"])
    func anEmbeddedICCProfileIsHandedOn(name: String) throws {
        let image = try decode(name)
        guard case .icc(let profile) = image.colorProfile else {
            Issue.record("no profile: \(String(describing: image.colorProfile))")
            return
        }
        #expect(profile.count == 20420 && Array(profile[36..<40]) == Array("acsp".utf8))
        #expect(try decode(name.replacingOccurrences(of: "-icc", with: "")).colorProfile == nil)
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

    // MARK: HEIC

    /// thumb.heic is 64×75 with a 26×32 thumbnail: a box it covers gets the thumbnail, a larger one the image.
    @Test func aHEICThumbnailServesTheBoxesItCovers() throws {
        let bytes = try Fixtures.data("thumb.heic")
        let header = try decoder.inspect(bytes)
        #expect(header.uprightSize == (64, 75) && header.format == .heic)
        let small = try decoder.decode(bytes, header: header, request: DecodeRequest(minimumSize: (20, 24)))
        #expect(small.pixels.width == 26 && small.pixels.height == 32, "\(small.pixels.width)×\(small.pixels.height)")
        #expect(small.header.uprightSize == (64, 75), "the header is the image's, not the thumbnail's")
        let large = try decoder.decode(bytes, header: header, request: DecodeRequest(minimumSize: (30, 36)))
        #expect(large.pixels.width == 64 && large.pixels.height == 75)
        // The thumbnail is the picture: close to the full image reduced to its size.
        let reference = try decode("hopper.png").pixels
        let reduced = reference.bytes.withUnsafeBufferPointer { PixelReducer.reduce($0, width: 64, height: 75, factor: 2) }
        let sameSize = PixelBuffer(
            width: 26, height: 32, bytes: (0..<32).flatMap { y in Array(reduced.bytes[(y * 32 * 4)..<(y * 32 * 4 + 26 * 4)]) })
        #expect(QuadrantPicture.meanDifference(small.pixels, sameSize) < 60, "roughly the same picture")
    }

    @Test func heicTopLevelImagesArePages() throws {
        let bytes = try Fixtures.data("pages.heic")
        let header = try decoder.inspect(bytes)
        #expect(header.pageCount == 2)
        for page in 0..<2 {
            let image = try decoder.decode(bytes, header: header, request: DecodeRequest(page: page))
            #expect(image.page == page)
            QuadrantPicture.expect(image.pixels, colours: QuadrantPicture.animationFrames[page])
        }
    }

    @Test func aHEIFSequenceShowsItsStillImageAndSaysWhy() throws {
        let image = try decode("sequence.heic")
        QuadrantPicture.expect(image.pixels)
        #expect(image.warning == "HEIF image sequence: showing its still image (libheif 1.15 cannot play sequences)")
    }

    // MARK: JPEG XL

    @Test func jxlAnimationsPlayWithTheirTiming() throws {
        let header = try decoder.inspect(try Fixtures.data("anim.jxl"))
        #expect(header.animation == AnimationSummary(frameCount: 3, duration: .milliseconds(600), loopCount: 0))
        let image = try decode("anim.jxl")
        let animation = try #require(image.animation)
        #expect(animation.frames.map(\.delay) == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
        for (frame, colours) in zip(animation.frames, QuadrantPicture.animationFrames) {
            QuadrantPicture.expect(frame.pixels, colours: colours)
        }
        let small = try #require(try decode("anim.jxl", request: DecodeRequest(minimumSize: (4, 3))).animation)
        #expect(small.frames.allSatisfy { $0.pixels.width == 8 && $0.pixels.height == 6 })
    }

    @Test func jxlOrientationIsHonoured() throws {
        // orient6.jpg recompressed: stored 12×16, shown turned a quarter clockwise as the upright picture.
        let bytes = try Fixtures.data("q-orient6.jxl")
        let header = try decoder.inspect(bytes)
        #expect(header.orientation == .right && header.uprightSize == (16, 12))
        QuadrantPicture.expect(try decoder.decode(bytes, header: header, request: DecodeRequest()).pixels)
    }

    /// A lossless image keeps its own colour space, which is handed on; a lossy one is converted to
    /// sRGB by libjxl, and an sRGB one needs nothing.
    @Test func jxlHandsOnAColourSpaceOnlyWhenItIsNotSRGB() throws {
        guard case .icc(let profile) = try decode("q-adobe.jxl").colorProfile else {
            Issue.record("no profile")
            return
        }
        #expect(profile.count > 128 && Array(profile[36..<40]) == Array("acsp".utf8))
        #expect(try decode("q.jxl").colorProfile == nil)
        #expect(try decode("q-lossy.jxl").colorProfile == nil)
    }

    @Test func aJXLCutShortShowsWhatLibjxlRendered() throws {
        let bytes = try Fixtures.data("cat.jxl")
        let image = try decoder.decode(Data(bytes.prefix(bytes.count / 2)), request: DecodeRequest())
        #expect(image.warning == "truncated JPEG XL; showing what could be decoded")
        #expect(image.pixels.width == 319 && image.pixels.height == 212)
        #expect(image.pixels.pixel(x: 10, y: 10).3 == 255, "the part that arrived is drawn")
        #expect(throws: ImageDecodingError.truncated(.jxl)) { try decoder.decode(Data(bytes.prefix(20)), request: DecodeRequest()) }
    }
}
