import Foundation
import ImgviewCodecs
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging

/// Truncated, damaged and oversized GIF, WebP, AVIF and BMP files: what arrived is shown with a
/// warning, or the file is refused with one line; nothing crashes and nothing large is allocated.
@Suite("Bad GIF, WebP, AVIF and BMP files")
struct BadFormatTests {
    let decoder = ImageDecoder()

    static let fixtures = [
        "q.gif", "q-interlaced.gif", "q-transparent.gif", "anim.gif", "dispose.gif", "hopper.gif", "slideshow.gif",
        "q-lossy.webp", "q-lossless.webp", "q-alpha.webp", "anim.webp", "dispose.webp", "hopper.webp", "slideshow.webp",
        "q-8bit.avif", "q-10bit.avif", "q-alpha.avif", "anim.avif", "hopper.avif", "slideshow.avif",
        "q-24.bmp", "q-24-topdown.bmp", "q-32-alpha.bmp", "q-32-padding.bmp", "q-16.bmp", "q-4.bmp", "q-rle8.bmp", "hopper-8.bmp",
        "q.qoi", "q-alpha.qoi", "hopper.qoi", "q.ico", "q-png.ico", "q-4bit.ico", "q.cur", "hopper.ico",
        "anim.png", "dispose.png", "hidden.png",
        "q.tif", "q-lzw.tif", "q-jpeg.tif", "q-tiled.tif", "q-alpha.tif", "pages.tif", "hopper.tif",
        "q.heic", "q-alpha.heic", "pages.heic", "thumb.heic", "sequence.heic",
        "q.jxl", "q-lossy.jxl", "q-alpha.jxl", "anim.jxl", "hopper.jxl", "q-orient6.jxl",
    ]

    /// Decodes `bytes`; an error must be one of the ones a bad file gets, with a one-line message.
    func outcome(_ bytes: Data) -> Result<DecodedImage, ImageDecodingError> {
        do {
            return .success(try decoder.decode(bytes, request: DecodeRequest(minimumSize: (8, 6))))
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: fixtures)
    func everyCutIsAWarningOrAnErrorNeverACrash(name: String) throws {
        let bytes = try Fixtures.data(name)
        // Every length for small files; about 200 evenly spread cuts for the larger ones.
        let step = max(1, bytes.count / 200)
        for length in stride(from: 0, to: bytes.count, by: step) {
            switch outcome(Data(bytes.prefix(length))) {
            case .success(let image):
                #expect(image.pixels.width > 0 && !(image.warning ?? "").contains("\n"), "\(name) cut at \(length)")
            case .failure(let error):
                switch error {
                case .empty, .notAnImage, .truncated, .corrupt: break
                default: Issue.record("\(name) cut at \(length): \(error)")
                }
                #expect(!error.message.contains("\n") && error.exitStatus == .badImage)
            }
        }
    }

    @Test(arguments: ["hopper.gif", "hopper.webp"])
    func aStillCutShortShowsItsTopRowsWithAWarning(name: String) throws {
        let bytes = try Fixtures.data(name)
        let image = try decoder.decode(Data(bytes.prefix(bytes.count * 6 / 10)), request: DecodeRequest())
        #expect(image.warning?.contains("truncated") == true)
        #expect(image.pixels.width == 64 && image.pixels.height == 75)
        #expect(image.pixels.pixel(x: 30, y: 1).3 == 255, "the first rows arrived")
        #expect(image.pixels.pixel(x: 30, y: 74).3 == 0, "the last did not: transparent, so the background shows")
    }

    @Test func aBottomUpBitmapCutShortShowsItsBottomRows() throws {
        let bytes = try Fixtures.data("hopper-8.bmp")
        let image = try decoder.decode(Data(bytes.prefix(bytes.count / 2)), request: DecodeRequest())
        #expect(image.warning == "truncated BMP; showing the part that could be decoded")
        #expect(image.pixels.pixel(x: 30, y: 74).3 == 255)
        #expect(image.pixels.pixel(x: 30, y: 1).3 == 0)
    }

    @Test func anAVIFStillCutShortIsAnError() throws {
        // libavif decodes an AV1 frame whole or not at all: there are no rows to show.
        let bytes = try Fixtures.data("hopper.avif")
        #expect(throws: ImageDecodingError.truncated(.avif)) {
            try decoder.decode(Data(bytes.prefix(bytes.count * 8 / 10)), request: DecodeRequest())
        }
    }

    @Test(arguments: ["slideshow.gif", "slideshow.webp", "slideshow.avif"])
    func anAnimationCutShortKeepsItsCompleteFrames(name: String) throws {
        let bytes = try Fixtures.data(name)
        let header = try decoder.inspect(bytes)
        #expect(header.animation?.frameCount == 3)
        let image = try decoder.decode(Data(bytes.prefix(bytes.count * 8 / 10)), request: DecodeRequest())
        let frames = image.animation?.frames.count ?? 1
        // A GIF shows the rows of its last frame that arrived; WebP and AVIF frames come whole or not at all.
        #expect(frames >= 1 && frames < (name.hasSuffix(".gif") ? 4 : 3), "\(frames) frames")
        #expect(image.warning?.contains("truncated") == true, "\(image.warning ?? "no warning")")
    }

    @Test func cutsInsideTheHeaderAreTruncated() throws {
        for name in ["q.gif", "anim.webp", "q-8bit.avif", "q-24.bmp"] {
            let bytes = try Fixtures.data(name)
            let error = outcome(Data(bytes.prefix(14)))
            guard case .failure(let failure) = error else {
                Issue.record("\(name) decoded from 14 bytes")
                continue
            }
            #expect(failure == .truncated(ImageFormat.sniff(bytes)!) || failure == .notAnImage, "\(name): \(failure)")
        }
    }

    @Test func damageInsideTheDataIsCorruptOrAWarning() throws {
        for name in ["q-lossless.webp", "q-8bit.avif", "anim.gif"] {
            var bytes = try Fixtures.data(name)
            for index in stride(from: bytes.count / 2, to: bytes.count, by: 3) { bytes[index] ^= 0x5A }
            switch outcome(bytes) {
            case .success(let image): #expect(image.pixels.width > 0)
            case .failure(let error): #expect(error.exitStatus == .badImage && !error.message.isEmpty, "\(name)")
            }
        }
    }

    // MARK: Declared sizes that would need gigabytes

    @Test func anAVIFDeclaringAHugeSizeIsRefused() throws {
        var bytes = [UInt8](try Fixtures.data("q-8bit.avif"))
        let ispe = try #require(bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("ispe".utf8) })
        // Width and height follow the box type and its version and flags.
        for offset in [ispe + 8, ispe + 12] { bytes.replaceSubrange(offset..<offset + 4, with: [0, 0, 0xEA, 0x60]) }  // 60000
        #expect(throws: ImageDecodingError.tooLarge(width: 60000, height: 60000, limit: DecodeRequest.defaultMaxPixelCount)) {
            try decoder.decode(Data(bytes), request: DecodeRequest())
        }
    }

    @Test func aBitmapDeclaringAHugeSizeIsRefused() throws {
        var bytes = [UInt8](try Fixtures.data("q-24.bmp"))
        bytes.replaceSubrange(18..<26, with: [0xA0, 0x86, 0x01, 0x00, 0xA0, 0x86, 0x01, 0x00])  // 100000 × 100000
        #expect(throws: ImageDecodingError.tooLarge(width: 100_000, height: 100_000, limit: DecodeRequest.defaultMaxPixelCount)) {
            try decoder.decode(Data(bytes), request: DecodeRequest())
        }
        bytes.replaceSubrange(18..<22, with: [0x01, 0x00, 0x00, 0x7F])  // a side longer than any real bitmap's
        guard case .corrupt(.bmp, _) = outcome(Data(bytes)).failure else {
            Issue.record("expected corrupt")
            return
        }
    }

    @Test func bitmapHeadersThatContradictThemselvesAreCorrupt() throws {
        let good = [UInt8](try Fixtures.data("q-24.bmp"))
        var rleTopDown = good
        rleTopDown.replaceSubrange(22..<26, with: [0xF4, 0xFF, 0xFF, 0xFF])  // height -12
        rleTopDown.replaceSubrange(28..<34, with: [8, 0, 1, 0, 0, 0])  // 8 bits, RLE8: only bottom-up is allowed
        var jpegInside = good
        jpegInside.replaceSubrange(30..<34, with: [4, 0, 0, 0])
        var unknownHeader = good
        unknownHeader[14] = 41
        for bytes in [rleTopDown, jpegInside] {
            guard case .corrupt(.bmp, _) = outcome(Data(bytes)).failure else {
                Issue.record("expected corrupt")
                continue
            }
        }
        #expect(outcome(Data(unknownHeader)).failure == .notAnImage, "an unknown header size is not a bitmap's")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
