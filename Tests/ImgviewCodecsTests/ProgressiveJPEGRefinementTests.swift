import CJPEG
import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging
@testable import ImgviewSupport

/// Progressive JPEGs at 1/4 scale are read until only the refinement of luma's lowest AC bit is
/// left (libjpeg's standard script puts it last, a third of the file): the result stays within a
/// level or two of every scan's, and nothing else is ever left out.
@Suite("Progressive JPEG at 1/4 without luma's last refinement")
struct ProgressiveJPEGRefinementTests {
    /// At 1/4 of the fixtures (226×150, 256×256).
    static let quarter = DecodeRequest(minimumSize: (50, 30))

    /// The scans after which every coefficient but luma's lowest AC bits has arrived.
    func scansAfterWhichOnlyLumaBitsAreMissing(_ name: String) throws -> [Int] {
        try JPEGSession.with(try Fixtures.data(name)) { session throws(ImageDecodingError) in
            let frame = try session.readHeader()
            session.configure(scaleInEighths: 2, cmyk: frame.isCMYK, bufferedImage: true)
            _ = try session.start()
            var found: [Int] = []
            while true {
                let status = try session.consumeInput()
                if status == JPEG_REACHED_EOI { return found }
                if status == JPEG_REACHED_SOS, session.onlyLowestLumaBitsMissing { found.append(session.inputScanNumber) }
            }
        }
    }

    func differences(_ a: PixelBuffer, _ b: PixelBuffer) -> (mean: Double, worst: Int) {
        var (total, worst) = (0, 0)
        for (x, y) in zip(a.bytes, b.bytes) {
            let difference = abs(Int(x) - Int(y))
            total += difference
            worst = max(worst, difference)
        }
        return (Double(total) / Double(max(1, a.bytes.count)), worst)
    }

    @Test(arguments: ["cat-progressive.jpg", "cat-progressive-444.jpg", "camera-progressive.jpg"])
    func onlyTheLastScanIsLeftOut(name: String) throws {
        // cjpeg's script: luma's lowest AC bit is the tenth and last scan of a colour file, the
        // sixth of a grey one; chroma's comes before it.
        let last = name.hasPrefix("camera") ? 6 : 10
        #expect(try scansAfterWhichOnlyLumaBitsAreMissing(name) == [last - 1, last])
        let read = try JPEGSession.with(try Fixtures.data(name)) { session throws(ImageDecodingError) in
            let frame = try session.readHeader()
            _ = try session.decodeRows(scaleInEighths: 2, cmyk: frame.isCMYK, skippingLowestBits: true, cancellation: CancellationFlag())
            return (scan: session.inputScanNumber, end: session.hasReadToTheEnd)
        }
        #expect(read.scan == last && !read.end, "the decode stops at the start of the last scan")
    }

    @Test(arguments: ["cat-progressive.jpg", "cat-progressive-444.jpg", "camera-progressive.jpg"])
    func aQuarterSizeDecodeIsWithinALevelOrTwoOfEveryScans(name: String) throws {
        let bytes = try Fixtures.data(name)
        let header = try JPEGDecoder().inspect(bytes)
        let fast = try JPEGDecoder().decode(bytes, header: header, request: Self.quarter)
        let full = try JPEGDecoder(readsEveryScan: true).decode(bytes, header: header, request: Self.quarter)
        let quarter = ((header.storedWidth + 3) / 4, (header.storedHeight + 3) / 4)
        #expect(fast.pixels.width == quarter.0 && fast.pixels.height == quarter.1)
        #expect(full.pixels.width == quarter.0 && full.pixels.height == quarter.1)
        #expect(fast.pixels != full.pixels ? true : false, "the last scan was left out")
        let (mean, worst) = differences(fast.pixels, full.pixels)
        #expect(mean < 0.6 && worst <= 4, "mean \(mean), largest \(worst)")
        #expect(fast.warning == nil)
    }

    @Test func largerScalesReadEveryScan() throws {
        let bytes = try Fixtures.data("cat-progressive.jpg")
        let header = try JPEGDecoder().inspect(bytes)
        let half = DecodeRequest(minimumSize: (100, 70))
        let fast = try JPEGDecoder().decode(bytes, header: header, request: half)
        let full = try JPEGDecoder(readsEveryScan: true).decode(bytes, header: header, request: half)
        #expect(fast.pixels.width == 113)
        #expect(fast.pixels == full.pixels ? true : false)
    }

    /// Cut inside the sixth scan: chroma's lowest bits never come, so nothing may be left out and
    /// the decode is every-scan's, warning included.
    @Test func aFileCutShortIsDecodedAsFarAsItGoes() throws {
        let bytes = try Fixtures.data("cat-progressive.jpg")
        let header = try JPEGDecoder().inspect(bytes)
        var scans: [Int] = []
        var index = bytes.startIndex
        while let found = bytes[index...].firstRange(of: Data([0xFF, 0xDA])) {
            scans.append(found.lowerBound)
            index = found.upperBound
        }
        try #require(scans.count == 10)
        let cut = Data(bytes.prefix(scans[5] + 400))
        let fast = try JPEGDecoder().decode(cut, header: header, request: Self.quarter)
        let full = try JPEGDecoder(readsEveryScan: true).decode(cut, header: header, request: Self.quarter)
        #expect(fast.pixels == full.pixels ? true : false)
        #expect(fast.warning?.contains("truncated") == true)
    }

    /// Cut inside the last scan, the one left out: the picture is the whole file's, and the
    /// warning is the one a decode of every scan gives.
    @Test func aFileCutInsideTheScanLeftOutIsStillReported() throws {
        let bytes = try Fixtures.data("cat-progressive.jpg")
        let header = try JPEGDecoder().inspect(bytes)
        let last = try #require(bytes.ranges(of: Data([0xFF, 0xDA])).last)
        let cut = Data(bytes[..<(last.lowerBound + (bytes.endIndex - last.lowerBound) / 2)])
        let whole = try JPEGDecoder().decode(bytes, header: header, request: Self.quarter)
        let fast = try JPEGDecoder().decode(cut, header: header, request: Self.quarter)
        let full = try JPEGDecoder(readsEveryScan: true).decode(cut, header: header, request: Self.quarter)
        #expect(whole.warning == nil)
        #expect(fast.pixels == whole.pixels ? true : false, "the scan left out is not read")
        #expect(full.warning?.contains("truncated") == true)
        #expect(fast.warning == full.warning, "\(fast.warning ?? "no warning")")
    }

    @Test func aCancelledDecodeStopsBetweenRows() throws {
        let bytes = try Fixtures.data("cat-progressive.jpg")
        let header = try JPEGDecoder().inspect(bytes)
        let flag = CancellationFlag()
        flag.cancel()
        var request = Self.quarter
        request.cancellation = flag
        #expect(throws: ImageDecodingError.cancelled) { try JPEGDecoder().decode(bytes, header: header, request: request) }
    }
}
