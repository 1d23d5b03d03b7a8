import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging
@testable import ImgviewSupport

/// Progressive JPEGs at 1/8 scale come from their DC coefficients alone; the result must be
/// libjpeg's own 1/8 decode, luma exactly, chroma within what averaging over 2×2 changes.
@Suite("Progressive JPEG from its DC scans")
struct ProgressiveJPEGTests {
    let request = DecodeRequest(minimumSize: (8, 8))

    func both(_ name: String) throws -> (fast: DecodedImage, libjpeg: DecodedImage) {
        let bytes = try Fixtures.data(name)
        let header = try JPEGDecoder().inspect(bytes)
        return (
            try JPEGDecoder().decode(bytes, header: header, request: request),
            try JPEGDecoder(readsEveryScan: true).decode(bytes, header: header, request: request)
        )
    }

    @Test func greyIsExactlyLibjpegs() throws {
        let (fast, libjpeg) = try both("camera-progressive.jpg")
        #expect(fast.pixels.width == 32 && fast.pixels.height == 32)
        #expect(fast.pixels == libjpeg.pixels)
        #expect(fast.warning == nil)
    }

    @Test(arguments: ["cat-progressive.jpg", "cat-progressive-444.jpg"])
    func colourMatchesLibjpeg(name: String) throws {
        let (fast, libjpeg) = try both(name)
        #expect(fast.pixels.width == libjpeg.pixels.width && fast.pixels.height == libjpeg.pixels.height)
        var worst = 0
        var total = 0
        for (a, b) in zip(fast.pixels.bytes, libjpeg.pixels.bytes) {
            let difference = abs(Int(a) - Int(b))
            worst = max(worst, difference)
            total += difference
        }
        let mean = Double(total) / Double(fast.pixels.bytes.count)
        // 4:4:4 has chroma at 1/8 in both; 4:2:0 chroma is one DC per 2×2 blocks here, a 2×2 transform in libjpeg.
        #expect(mean < (name.contains("444") ? 0.5 : 3), "mean difference \(mean)")
        #expect(worst < (name.contains("444") ? 3 : 64), "largest difference \(worst)")
    }

    @Test func baselineFilesAreLeftToLibjpeg() throws {
        let bytes = try Fixtures.data("cat-baseline.jpg")
        #expect(try JPEGDCDecoder.decode(bytes, cancellation: CancellationFlag()) == nil)
    }

    @Test func aTruncatedFileKeepsWhatArrivedWithAWarning() throws {
        let bytes = try Fixtures.data("cat-progressive.jpg")
        let header = try JPEGDecoder().inspect(bytes)
        // Cut a little way into the first (DC) scan: the blocks after the cut are grey, as libjpeg shows them.
        let scan = try #require(bytes.firstRange(of: Data([0xFF, 0xDA]))).lowerBound
        let cut = Data(bytes.prefix(scan + 200))
        let image = try JPEGDecoder().decode(cut, header: header, request: request)
        #expect(image.warning?.contains("truncated") == true)
        let full = try JPEGDecoder().decode(bytes, header: header, request: request)
        // The first scan holds the DC less its lowest bit: close to the final, not equal.
        let (early, final) = (image.pixels.pixel(x: 1, y: 0), full.pixels.pixel(x: 1, y: 0))
        #expect(abs(Int(early.0) - Int(final.0)) < 12 && abs(Int(early.1) - Int(final.1)) < 12, "the first rows are real")
        let last = image.pixels.pixel(x: image.pixels.width - 1, y: image.pixels.height - 1)
        #expect(last.0 == 128 && last.1 == 128 && last.2 == 128)
    }

    /// libjpeg keeps a progressive file's every coefficient (here 900 blocks of 128 bytes): past
    /// the memory allowed, the DC scans alone give an eighth of the size instead (an 8000² photo
    /// full screen took 223 MB); read through libjpeg only, it is refused in one line.
    @Test func coefficientsPastTheMemoryAllowedGiveTheDCImage() throws {
        let bytes = try Fixtures.data("cat-progressive.jpg")
        let header = try JPEGDecoder().inspect(bytes)
        let fits = DecodeRequest(minimumSize: (226, 150), maxDecodeBytes: 115_200)
        #expect(try JPEGDecoder().decode(bytes, header: header, request: fits).pixels.width == 226)
        let tight = DecodeRequest(minimumSize: (226, 150), maxDecodeBytes: 115_199)
        let image = try JPEGDecoder().decode(bytes, header: header, request: tight)
        #expect(image.pixels.width == 29 && image.pixels.height == 19 && image.warning == nil)
        let dc = try #require(try JPEGDCDecoder.decode(bytes, cancellation: CancellationFlag()))
        #expect(image.pixels == dc.pixels)
        #expect(
            throws: ImageDecodingError.tooLargeToDecode(what: "a progressive JPEG", width: 226, height: 150, bytes: 115_200, limit: 115_199)
        ) {
            try JPEGDecoder(readsEveryScan: true).decode(bytes, header: header, request: tight)
        }
    }

    @Test func everyCutOfTheFileDecodesOrFailsCleanly() throws {
        let bytes = try Fixtures.data("cat-progressive.jpg")
        for length in stride(from: 0, to: bytes.count, by: 97) {
            _ = try? JPEGDCDecoder.decode(Data(bytes.prefix(length)), cancellation: CancellationFlag())
        }
    }
}
