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

    /// cjxl's default for a JPEG: the JPEG recompressed, rebuilt byte for byte from its reconstruction data.
    @Test func aRecompressedJPEGIsRebuiltAsItWas() throws {
        let bytes = try Fixtures.data("camera-exif.jxl")
        let header = try decoder.inspect(bytes)
        let rebuilt = try JXLSession.with(bytes) { session throws(ImageDecodingError) in
            try session.reconstructedJPEG(
                width: header.storedWidth, height: header.storedHeight, likely: 64, limit: 1 << 20, request: DecodeRequest())
        }
        #expect(rebuilt.map { Data($0) } == (try Fixtures.data("camera-exif.jpg")), "grown from 64 bytes to the whole JPEG")
        let tooSmall = try JXLSession.with(bytes) { session throws(ImageDecodingError) in
            try session.reconstructedJPEG(
                width: header.storedWidth, height: header.storedHeight, likely: 64, limit: 4096, request: DecodeRequest())
        }
        #expect(tooSmall == nil, "a JPEG past its limit is not rebuilt")
        let pixelsOnly = try Fixtures.data("q-lossy.jxl")
        let lossy = try decoder.inspect(pixelsOnly)
        let none = try JXLSession.with(pixelsOnly) { session throws(ImageDecodingError) in
            try session.reconstructedJPEG(
                width: lossy.storedWidth, height: lossy.storedHeight, likely: 64, limit: 1 << 20, request: DecodeRequest())
        }
        #expect(none == nil, "a JPEG XL made from pixels has nothing to rebuild")
    }

    /// A box smaller than a recompressed JPEG: libjpeg decodes the rebuilt JPEG at the DCT scale
    /// that covers it, the same pixels as the JPEG itself gives, turned by the JPEG XL's orientation.
    @Test func aRecompressedJPEGIsDecodedAtADCTScaleForASmallerBox() throws {
        let bytes = try Fixtures.data("q-orient6.jxl")
        let header = try decoder.inspect(bytes)
        let request = DecodeRequest(minimumSize: (4, 3))
        let image = try decoder.decode(bytes, header: header, request: request)
        // 12×16 stored at a quarter is 3×4, upright 4×3; decoded as pixels it would be kept at twice that.
        #expect(image.pixels.width == 4 && image.pixels.height == 3, "\(image.pixels.width)×\(image.pixels.height)")
        #expect(image.header == header && image.warning == nil)
        let jpeg = try decoder.decode(try Fixtures.data("orient6.jpg"), request: request)
        #expect(image.pixels == jpeg.pixels, "what libjpeg gives for the JPEG itself")
        #expect(try JXLDecoder.decodeAsJPEG(bytes, header: header, request: DecodeRequest()) == nil, "at full size, the pixels as before")
        let whole = try decoder.decode(bytes, header: header, request: DecodeRequest())
        #expect(whole.pixels.width == 16 && whole.pixels.height == 12)
        QuadrantPicture.expect(whole.pixels)
        let lossy = try Fixtures.data("q-lossy.jxl")
        #expect(try JXLDecoder.decodeAsJPEG(lossy, header: decoder.inspect(lossy), request: request) == nil)
    }

    /// The JPEG XL fuzz target asks for 12×8 of every input of odd length: its recompressed seed
    /// reaches the rebuilt JPEG's path.
    @Test func theJXLFuzzSeedReachesTheRebuiltJPEG() throws {
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../ImgviewFuzzingTests/Corpus/jxl/seed-q-orient6.jxl")
        let bytes = try Data(contentsOf: seed)
        #expect(bytes.count % 2 == 1)
        let header = try decoder.inspect(bytes)
        #expect(try JXLDecoder.decodeAsJPEG(bytes, header: header, request: DecodeRequest(minimumSize: (12, 8))) != nil)
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

    // MARK: SVG

    /// An SVG is drawn at the size asked for, from its own size when none is: never scaled as pixels.
    @Test func svgIsDrawnAtTheSizeAskedFor() throws {
        let bytes = try Fixtures.data("q.svg")
        let header = try decoder.inspect(bytes)
        #expect(header.isScalable && header.naturalSize == ImageDimensions(width: 16, height: 12))
        #expect(header.uprightSize == (8192, 6144), "its shape at the most it is drawn at")
        QuadrantPicture.expect(try decoder.decode(bytes, header: header, request: DecodeRequest()).pixels)
        let large = try decoder.decode(bytes, header: header, request: DecodeRequest(minimumSize: (160, 100))).pixels
        #expect(large.width == 160 && large.height == 120)
        // Sharp edges at 10×: the pixel beside the red and green halves' border is one or the other.
        #expect(large.pixel(x: 79, y: 30) == (255, 0, 0, 255) && large.pixel(x: 80, y: 30) == (0, 255, 0, 255))
        let capped = try decoder.decode(
            bytes, header: header, request: DecodeRequest(minimumSize: (100_000, 75_000), maxPixelCount: 1_000_000))
        #expect(capped.pixels.width * capped.pixels.height <= 1_001_000 && capped.pixels.width > 1000, "within the pixel limit")
    }

    @Test func anSVGWithOnlyAViewBoxHasItsShapeButNoSize() throws {
        let bytes = try Fixtures.data("q-viewbox.svg")
        let header = try decoder.inspect(bytes)
        #expect(header.isScalable && header.naturalSize == nil && header.uprightSize == (8192, 6144))
        let image = try decoder.decode(bytes, header: header, request: DecodeRequest(minimumSize: (16, 12)))
        QuadrantPicture.expect(image.pixels)
    }

    /// A length is any number the text says: a width past what an Int holds is no size to show,
    /// and the document keeps its shape.
    @Test func anSVGWiderThanAnIntHasItsShapeButNoSize() throws {
        let text = #"<svg xmlns="http://www.w3.org/2000/svg" width="1e30" height="1"><rect width="1" height="1"/></svg>"#
        let header = try decoder.inspect(Data(text.utf8))
        #expect(header.isScalable && header.naturalSize == nil && header.uprightSize == (8192, 1))
        _ = try decoder.decode(Data(text.utf8), header: header, request: DecodeRequest(minimumSize: (16, 12)))
    }

    @Test func svgTransparencyAndTextDraw() throws {
        QuadrantPicture.expect(try decode("q-alpha.svg").pixels, transparentBottom: true)
        let text = try decode("text.svg").pixels
        #expect(text.width == 120 && text.height == 30)
        let dark = stride(from: 0, to: text.bytes.count, by: 4).filter { text.bytes[$0] < 100 }.count
        #expect(dark > 50, "the glyphs are drawn (\(dark) dark pixels)")
    }

    /// Hostile SVGs are refused before librsvg sees them, or by libxml2's own limits, with one line.
    @Test func hostileSVGsAreRefusedWithOneLine() throws {
        let rects = String(repeating: "<rect width=\"1\" height=\"1\"/>", count: 40_001)
        let laughs = """
            <?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\
            <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">\
            <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">\
            <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]>\
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&h;</text></svg>
            """
        let markup = """
            <?xml version="1.0"?><!DOCTYPE svg [<!ENTITY r "<rect width='1' height='1'/>">]>\
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">&r;&r;</svg>
            """
        // A PNG declaring 100000×100000, embedded: librsvg would decode it whole.
        let bomb = try Fixtures.data("bomb.png").base64EncodedString()
        let embedded =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="data:image/png;base64,\#(bomb)" width="10" height="10"/></svg>"#
        // A QOI header declaring 4294967295 square: its pixels are past what an Int holds.
        let qoi = Data(Array("qoif".utf8) + [UInt8](repeating: 0xFF, count: 8) + [4, 0]).base64EncodedString()
        let huge =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="data:image/qoi;base64,\#(qoi)" width="10" height="10"/></svg>"#
        let unreadable =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="data:image/png;base64,AAAA" width="10" height="10"/></svg>"#
        let cases: [(String, String)] = [
            ("<svg xmlns=\"http://www.w3.org/2000/svg\">" + rects + "</svg>", "too complex: more than 40000 elements"),
            (markup, "an entity that holds markup is not drawn"),
            (embedded, "embedded images of more than 16 megapixels in all (one is 100000×100000)"),
            (huge, "embedded images of more than 16 megapixels in all (one is 4294967295×4294967295)"),
            (unreadable, "an embedded image whose size cannot be read"),
        ]
        for (text, reason) in cases {
            #expect(throws: ImageDecodingError.corrupt(.svg, detail: reason)) {
                try decoder.decode(Data(text.utf8), request: DecodeRequest())
            }
        }
        // libxml2 stops the billion laughs itself.
        do {
            _ = try decoder.decode(Data(laughs.utf8), request: DecodeRequest())
            Issue.record("the billion laughs was drawn")
        } catch {
            #expect(error.exitStatus == .badImage && !error.message.contains("\n"), "\(error.message)")
        }
    }

    @Test func anSVGReadsNothingOutsideItself() throws {
        // No base URI: a reference to a local file draws nothing, and is not an error.
        let svg =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="16" height="12"><image href="file://\#(Fixtures.path("rgb.png"))" width="16" height="12"/></svg>"#
        let image = try decoder.decode(Data(svg.utf8), request: DecodeRequest())
        #expect(image.pixels.bytes.allSatisfy { $0 == 0 }, "nothing was loaded")
    }

    @Test func aCutSVGIsTruncated() throws {
        let bytes = try Fixtures.data("q.svg")
        #expect(throws: ImageDecodingError.truncated(.svg)) {
            try decoder.decode(Data(bytes.prefix(bytes.count - 20)), request: DecodeRequest())
        }
    }
}
