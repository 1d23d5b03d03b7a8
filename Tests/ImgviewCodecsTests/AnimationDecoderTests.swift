import Foundation
import ImgviewCodecs
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging

/// Animated GIF, WebP and AVIF: frames composed as browsers compose them, their timing and
/// loops, and the limits that keep a frame bomb from taking the machine.
@Suite("Decoding animations")
struct AnimationDecoderTests {
    let decoder = ImageDecoder()

    func decode(_ name: String, request: DecodeRequest = DecodeRequest()) throws -> DecodedImage {
        try decoder.decode(try Fixtures.data(name), request: request)
    }

    @Test(arguments: [("anim.gif", 0), ("anim.webp", 3), ("anim.avif", 0), ("anim.png", 0)])
    func framesTimingAndLoops(name: String, loops: Int) throws {
        let header = try decoder.inspect(try Fixtures.data(name))
        #expect(header.animation == AnimationSummary(frameCount: 3, duration: .milliseconds(600), loopCount: loops))
        let image = try decode(name)
        #expect(image.warning == nil)
        let animation = try #require(image.animation)
        #expect(animation.frames.count == 3 && animation.loopCount == loops)
        #expect(animation.frames.map(\.delay) == [.milliseconds(100), .milliseconds(200), .milliseconds(300)])
        for (frame, colours) in zip(animation.frames, QuadrantPicture.animationFrames) {
            QuadrantPicture.expect(frame.pixels, colours: colours)
        }
        #expect(image.pixels == animation.frames[0].pixels)
    }

    /// Frame 2 draws a white square and is then restored to the previous canvas; frame 3 draws a
    /// black one and is cleared to the background (transparent); frame 4 adds a magenta pixel.
    @Test(arguments: ["dispose.gif", "dispose.webp", "dispose.png"])
    func disposalMethodsComposeAsBrowsersDo(name: String) throws {
        let frames = try #require(try decode(name).animation).frames.map(\.pixels)
        // dispose.png has a fifth frame, blended over (`apngBlendsOverTheCanvas`).
        #expect(frames.count == (name.hasSuffix(".png") ? 5 : 4))
        QuadrantPicture.expect(frames[0])
        #expect(frames[1].pixel(x: 7, y: 5) == (255, 255, 255, 255), "the white square")
        #expect(QuadrantPicture.near(frames[1].pixel(x: 2, y: 2), QuadrantPicture.red))
        #expect(QuadrantPicture.near(frames[2].pixel(x: 7, y: 5), QuadrantPicture.red), "restored to the previous frame")
        #expect(frames[2].pixel(x: 1, y: 1) == (0, 0, 0, 255), "the black square")
        #expect(frames[3].pixel(x: 1, y: 1).3 == 0, "cleared to the background")
        #expect(frames[3].pixel(x: 15, y: 11) == (255, 0, 255, 255), "the magenta pixel")
        #expect(QuadrantPicture.near(frames[3].pixel(x: 13, y: 2), QuadrantPicture.green), "the rest stays")
    }

    @Test func gifLoopCountsCountTheFirstPlay() throws {
        // gifsicle --loopcount=2 writes NETSCAPE2.0 with 2 repetitions: three plays, as Chrome plays it.
        #expect(try decoder.inspect(try Fixtures.data("dispose.gif")).animation?.loopCount == 3)
    }

    @Test(arguments: ["anim.gif", "anim.webp", "anim.avif", "anim.png", "slideshow.gif", "slideshow.webp", "slideshow.avif"])
    func everyFrameIsReducedToTheRequestedScale(name: String) throws {
        let full = try #require(try decode(name).animation)
        let small = try #require(try decode(name, request: DecodeRequest(minimumSize: (4, 3))).animation)
        #expect(small.frames.count == full.frames.count)
        // 16×12 by 2, 48×36 by 6: the largest whole factor that still covers twice 4×3.
        #expect(small.frames.allSatisfy { $0.pixels.width == 8 && $0.pixels.height == 6 })
        #expect(small.frames.map(\.delay) == full.frames.map(\.delay))
    }

    @Test(arguments: ["anim.gif", "anim.webp", "anim.avif", "anim.png"])
    func theFrameLimitCutsWithAWarning(name: String) throws {
        let limits = AnimationLimits(maxFrameCount: 2, maxComposedPixels: .max, maxKeptPixels: .max)
        let image = try decode(name, request: DecodeRequest(animationLimits: limits))
        #expect(image.animation?.frames.count == 2)
        #expect(image.warning == "animation cut short after 2 of 3 frames (at most 2 frames are kept)")
    }

    // MARK: APNG

    @Test func apngBlendsOverTheCanvas() throws {
        let image = try decode("dispose.png")
        #expect(image.animation?.loopCount == 3)
        let last = try #require(image.animation?.frames.last).pixels
        // Half-transparent white over opaque green: halfway between, still opaque.
        let pixel = last.pixel(x: 12, y: 0)
        #expect(pixel.3 == 255 && abs(Int(pixel.0) - 128) <= 2 && pixel.1 == 255 && abs(Int(pixel.2) - 128) <= 2, "\(pixel)")
    }

    /// A default image that comes before the first frame's control chunk is not part of the
    /// animation: frames show without it, and a PNG reader that knows no APNG shows only it.
    @Test func anApngsHiddenDefaultImageIsNotAFrame() throws {
        let image = try decode("hidden.png")
        #expect(image.header.animation == AnimationSummary(frameCount: 2, duration: .seconds(1), loopCount: 0))
        let frames = try #require(image.animation).frames
        QuadrantPicture.expect(frames[0].pixels)
        QuadrantPicture.expect(frames[1].pixels, colours: QuadrantPicture.animationFrames[1])
    }

    @Test func aBrokenApngShowsItsDefaultImageWithAWarning() throws {
        // Frame 2's sequence number changed from 1 to 9: the animation cannot be trusted.
        var bytes = [UInt8](try Fixtures.data("anim.png"))
        let controls = bytes.indices.filter { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("fcTL".utf8) }
        bytes[controls[1] + 7] = 9
        // Its CRC is now wrong too, which libspng would refuse in IDAT but ignores in a chunk it does not know.
        let image = try decoder.decode(Data(bytes), request: DecodeRequest())
        #expect(image.animation == nil && image.header.animation == nil)
        QuadrantPicture.expect(image.pixels)
        #expect(image.warning == "damaged APNG animation (frames out of sequence); showing its default image")
    }

    @Test func anApngFrameBombIsCutShort() throws {
        let bytes = Self.apngBomb(width: 64, height: 64, frames: 10_000)
        let header = try decoder.inspect(bytes)
        #expect(header.animation?.frameCount == 10_000)
        let image = try decoder.decode(bytes, header: header, request: DecodeRequest())
        #expect(image.animation?.frames.count == AnimationLimits.default.maxFrameCount)
        #expect(image.warning == "animation cut short after 5000 of 10000 frames (at most 5000 frames are kept)")
    }

    /// PNG's CRC-32 (ISO 3309), bit by bit: a test needs a few hundred bytes of it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// An APNG of `frames` one-pixel frames on a `width × height` canvas, the first being the default image.
    static func apngBomb(width: Int, height: Int, frames: Int) -> Data {
        func big(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(value >> (8 * $0) & 0xFF) } }
        func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + payload
            return big(payload.count, 4) + typed + big(Int(Self.crc32(typed)), 4)
        }
        // Grey, 8 bits; a row of zeros compressed (stored): filter byte and samples.
        func stored(_ raw: [UInt8]) -> [UInt8] {
            var (a, b) = (1, 0)
            for byte in raw {
                a = (a + Int(byte)) % 65521
                b = (b + a) % 65521
            }
            return [0x78, 0x01, 1] + big(raw.count, 2).reversed() + big(~raw.count & 0xFFFF, 2).reversed() + raw + big(b << 16 | a, 4)
        }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", big(width, 4) + big(height, 4) + [8, 0, 0, 0, 0])
        bytes += chunk("acTL", big(frames, 4) + big(0, 4))
        var sequence = 0
        func control(_ w: Int, _ h: Int) -> [UInt8] {
            defer { sequence += 1 }
            return chunk("fcTL", big(sequence, 4) + big(w, 4) + big(h, 4) + big(0, 4) + big(0, 4) + big(2, 2) + big(100, 2) + [0, 0])
        }
        bytes += control(width, height)
        bytes += chunk("IDAT", stored([UInt8](repeating: 0, count: height * (width + 1))))
        for _ in 1..<frames {
            bytes += control(1, 1)
            bytes += chunk("fdAT", big(sequence, 4) + stored([0, 0x80]))
            sequence += 1
        }
        return Data(bytes + chunk("IEND", []))
    }

    // MARK: Frame bombs

    /// A GIF of `frames` one-pixel frames on a `width × height` screen, each shown 20 ms.
    static func gifBomb(width: Int, height: Int, frames: Int) -> Data {
        func little16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        var bytes = Array("GIF89a".utf8) + little16(width) + little16(height) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        let frame: [UInt8] = [0x21, 0xF9, 4, 0, 2, 0, 0, 0] + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + [2, 2, 0x44, 0x01, 0]
        for _ in 0..<frames { bytes += frame }
        return Data(bytes + [0x3B])
    }

    /// An animated WebP of `frames` copies of the 16×12 lossless picture on a `width × height` canvas.
    static func webpBomb(width: Int, height: Int, frames: Int) throws -> Data {
        func little(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(value >> (8 * $0) & 0xFF) } }
        func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            Array(type.utf8) + little(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        let still = [UInt8](try Fixtures.data("q-lossless.webp"))
        let image = Array(still[12...])  // the VP8L chunk, header included
        var body = chunk("VP8X", [0x12, 0, 0, 0] + little(width - 1, 3) + little(height - 1, 3))
        body += chunk("ANIM", [0, 0, 0, 0] + little(0, 2))
        let frame = chunk("ANMF", little(0, 3) + little(0, 3) + little(15, 3) + little(11, 3) + little(20, 3) + [0] + image)
        for _ in 0..<frames { body += frame }
        return Data(Array("RIFF".utf8) + little(4 + body.count, 4) + Array("WEBP".utf8) + body)
    }

    @Test func tenThousandFramesAreCutShortNotDecodedWhole() throws {
        for (name, bytes) in [
            ("GIF", Self.gifBomb(width: 64, height: 64, frames: 10_000)),
            ("WebP", try Self.webpBomb(width: 64, height: 64, frames: 10_000)),
        ] {
            let header = try decoder.inspect(bytes)
            #expect(header.animation?.frameCount == 10_000, "\(name)")
            let image = try decoder.decode(bytes, header: header, request: DecodeRequest())
            #expect(image.animation?.frames.count == AnimationLimits.default.maxFrameCount, "\(name)")
            #expect(image.warning == "animation cut short after 5000 of 10000 frames (at most 5000 frames are kept)", "\(name)")
        }
    }

    @Test func aLargeScreenKeepsOnlyTheFramesItsMemoryAllows() throws {
        // 1000×1000 is within the pixel limit, but 10,000 frames of it would be 40 GB: 64 Mi pixels of frames are kept.
        let image = try decoder.decode(Self.gifBomb(width: 1000, height: 1000, frames: 10_000), request: DecodeRequest())
        #expect(image.animation?.frames.count == 67)
        #expect(image.warning?.contains("the frames kept may not pass 67108864 pixels in all") == true)
        // Previewing, frames are kept at the preview's scale: the composing work bounds them instead.
        let preview = try decoder.decode(
            Self.gifBomb(width: 1000, height: 1000, frames: 10_000),
            request: DecodeRequest(
                minimumSize: (50, 50),
                animationLimits: AnimationLimits(maxFrameCount: 5000, maxComposedPixels: 50_000_000, maxKeptPixels: 64 << 20)))
        #expect(preview.animation?.frames.count == 49)
        #expect(preview.animation?.frames.first?.pixels.width == 100)
    }

    /// Frames may lie partly or wholly off the screen; "restore to background" then clears only
    /// what is on it, and frames that follow still compose.
    @Test func framesOffTheScreenAreClippedWhenDrawnAndWhenCleared() throws {
        func little16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        /// A one-pixel frame of colour 1 (white) at (left, top), cleared to the background afterwards.
        func frame(left: Int, top: Int) -> [UInt8] {
            [0x21, 0xF9, 4, 2 << 2, 2, 0, 0, 0] + [0x2C] + little16(left) + little16(top) + little16(1) + little16(1) + [0]
                + [2, 2, 0x4C, 0x01, 0]
        }
        var bytes = Array("GIF89a".utf8) + little16(4) + little16(4) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        bytes += frame(left: 0, top: 0) + frame(left: 0, top: 100) + frame(left: 100, top: 0) + frame(left: 3, top: 3)
        let image = try decoder.decode(Data(bytes + [0x3B]), request: DecodeRequest())
        #expect(image.warning == nil)
        let frames = try #require(image.animation).frames.map(\.pixels)
        #expect(frames.count == 4)
        #expect(frames[0].pixel(x: 0, y: 0) == (255, 255, 255, 255))
        #expect(frames[1].pixel(x: 0, y: 0).3 == 0, "the first frame cleared, nothing drawn")
        #expect(frames[3].pixel(x: 3, y: 3) == (255, 255, 255, 255))
    }

    @Test func hugeCanvasesAreRefusedBeforeAnythingIsAllocated() throws {
        let gif = Self.gifBomb(width: 65535, height: 65535, frames: 2)
        #expect(throws: ImageDecodingError.tooLarge(width: 65535, height: 65535, limit: DecodeRequest.defaultMaxPixelCount)) {
            try decoder.decode(gif, request: DecodeRequest())
        }
        let webp = try Self.webpBomb(width: 16384, height: 16384, frames: 2)
        #expect(throws: ImageDecodingError.tooLarge(width: 16384, height: 16384, limit: DecodeRequest.defaultMaxPixelCount)) {
            try decoder.decode(webp, request: DecodeRequest())
        }
    }
}
