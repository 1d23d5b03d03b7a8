import Foundation
import ImgviewCodecs
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging
@testable import ImgviewSupport

@Suite("Bad images")
struct BadImageTests {
    let decoder = ImageDecoder()

    func error(decoding bytes: Data, request: DecodeRequest = DecodeRequest()) -> ImageDecodingError? {
        do {
            _ = try decoder.decode(bytes, request: request)
            return nil
        } catch {
            #expect(error.exitStatus == .badImage)
            #expect(!error.message.contains("\n") && !error.message.isEmpty)
            return error
        }
    }

    @Test func emptyDataIsRefused() {
        #expect(error(decoding: Data()) == .empty)
    }

    @Test func textIsNotAnImage() {
        #expect(error(decoding: Data("<html>not found</html>".utf8)) == .notAnImage)
    }

    @Test(arguments: ["bomb.png", "bomb.jpg"])
    func hugeDeclaredSizesAreRefusedBeforeDecoding(name: String) throws {
        guard case .tooLarge(let width, let height, let limit)? = error(decoding: try Fixtures.data(name)) else {
            Issue.record("expected tooLarge")
            return
        }
        #expect(width >= 65000 && height >= 65000 && limit == DecodeRequest.defaultMaxPixelCount)
    }

    @Test func thePixelLimitIsConfigurable() throws {
        let bytes = try Fixtures.data("rgb.png")
        #expect(error(decoding: bytes, request: DecodeRequest(maxPixelCount: 191)) == .tooLarge(width: 16, height: 12, limit: 191))
        #expect(error(decoding: bytes, request: DecodeRequest(maxPixelCount: 192)) == nil)
    }

    @Test func truncatedJPEGShowsWhatDecodedWithAWarning() throws {
        let bytes = try Fixtures.data("photo.jpg")
        let image = try decoder.decode(Data(bytes.prefix(bytes.count * 6 / 10)), request: DecodeRequest())
        #expect(image.pixels.width == 128 && image.pixels.height == 96)
        #expect(image.warning?.contains("truncated") == true)
        // The first rows decoded from real data, not libjpeg's grey fill.
        let top = image.pixels.pixel(x: 100, y: 2)
        #expect(!(top.0 == top.1 && top.1 == top.2))
    }

    @Test func jpegCutInsideItsHeaderIsAnError() throws {
        let bytes = try Fixtures.data("photo.jpg")
        #expect(error(decoding: Data(bytes.prefix(40))) != nil)
    }

    @Test func truncatedPNGShowsTheRowsThatArrivedWithAWarning() throws {
        let bytes = try Fixtures.data("photo.png")
        let image = try decoder.decode(Data(bytes.prefix(bytes.count / 2)), request: DecodeRequest())
        #expect(image.warning?.contains("truncated") == true)
        #expect(image.pixels.pixel(x: 10, y: 1).3 == 255, "early rows are real")
        #expect(image.pixels.pixel(x: 10, y: 95).3 == 0, "missing rows are transparent, so they show the background")
    }

    @Test func pngCutBeforeAnyRowIsTruncated() throws {
        let bytes = try Fixtures.data("photo.png")
        #expect(error(decoding: Data(bytes.prefix(20))) == .truncated(.png))
    }

    @Test func pngWithADamagedHeaderIsCorrupt() throws {
        var bytes = try Fixtures.data("rgb.png")
        bytes[30] ^= 0xFF  // inside IHDR's CRC: the header no longer checks out
        guard case .corrupt(.png, _)? = error(decoding: bytes) else {
            Issue.record("expected corrupt")
            return
        }
    }

    @Test func inspectRefusesWhatDecodeRefuses() {
        #expect(throws: ImageDecodingError.notAnImage) { try decoder.inspect(Data("hello".utf8)) }
        #expect(throws: ImageDecodingError.empty) { try decoder.inspect(Data()) }
    }
}

@Suite("Cancelled decodes")
struct CancelledDecodeTests {
    @Test(arguments: ["photo.jpg", "photo.png"])
    func aDecodeNobodyWaitsForStopsBeforeItsFirstRow(name: String) throws {
        let flag = CancellationFlag()
        flag.cancel()
        #expect(throws: ImageDecodingError.cancelled) {
            try ImageDecoder().decode(try Fixtures.data(name), request: DecodeRequest(cancellation: flag))
        }
        #expect(ImageDecodingError.cancelled.exitStatus == .interrupted)
    }
}
