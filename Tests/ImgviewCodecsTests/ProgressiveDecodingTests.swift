import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewImaging

/// Images fed to a progressive decoder a few hundred bytes at a time, as a slow download
/// brings them: pictures come at the points the format allows and end as the final decode.
@Suite("Decoding while the bytes arrive")
struct ProgressiveDecodingTests {
    /// Feeds `name` in steps of `step` bytes; returns each picture with the length that brought it.
    func feed(
        _ name: String, step: Int = 256, minimum: (width: Int, height: Int)? = nil
    ) throws -> (
        pictures: [(length: Int, image: DecodedImage)], final: DecodedImage, bytes: Data
    ) {
        let bytes = try Fixtures.data(name)
        let format = try #require(ImageFormat.sniff(bytes))
        let request = DecodeRequest(minimumSize: minimum)
        let decoder = try #require(ImageDecoder().makeProgressiveDecoder(for: format) { _ in request })
        var pictures: [(Int, DecodedImage)] = []
        for length in Array(stride(from: step, to: bytes.count, by: step)) + [bytes.count] {
            if let image = try decoder.update(with: Data(bytes.prefix(length))) { pictures.append((length, image)) }
        }
        let final = try ImageDecoder().decode(bytes, request: request)
        return (pictures, final, bytes)
    }

    /// Where each scan's data starts (just after its SOS segment) and ends (at the next marker).
    func scans(of bytes: Data) -> [(start: Int, end: Int)] {
        let data = [UInt8](bytes)
        var scans: [(Int, Int)] = []
        var index = 2
        while index + 3 < data.count {
            guard data[index] == 0xFF else { index += 1; continue }
            let marker = data[index + 1]
            if marker == 0xD9 { break }
            if marker == 0x00 || marker == 0xFF || (0xD0...0xD7).contains(marker) { index += 1; continue }
            let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
            if marker == 0xDA {
                let start = index + 2 + length
                var end = start
                while end + 1 < data.count, !(data[end] == 0xFF && data[end + 1] != 0 && !(0xD0...0xD7).contains(data[end + 1])) {
                    end += 1
                }
                scans.append((start, end))
                index = end
            } else {
                index += 2 + length
            }
        }
        return scans
    }

    func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        Double(zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.bytes.count)
    }

    @Test func aProgressiveJPEGShowsEachScanAndEndsAsTheFinalDecode() throws {
        let (pictures, final, bytes) = try feed("cat-progressive.jpg", step: 128, minimum: (226, 150))
        let scans = scans(of: bytes)
        #expect(scans.count == 10)
        // Nothing before the first scan is whole; a picture once each scan is (told by the next marker).
        #expect(pictures.first.map { $0.length > scans[0].end } == true)
        #expect(pictures.count == scans.count, "one picture a scan: \(pictures.map(\.length)) for scans ending \(scans.map(\.end))")
        // Each once the next scan's header has come (tables may stand between the scans).
        for (index, (picture, scan)) in zip(pictures, scans).enumerated() {
            let next = index + 1 < scans.count ? scans[index + 1].start : bytes.count
            #expect(picture.length > scan.end && picture.length <= next + 128)
        }
        let last = try #require(pictures.last?.image)
        #expect(last.pixels == final.pixels)
        #expect(meanDifference(pictures[0].image.pixels, final.pixels) > meanDifference(pictures[5].image.pixels, final.pixels))
    }

    @Test func aProgressiveJPEGForASmallBoxShowsItsDCScans() throws {
        // At 1/8 scale the DC scans are all that show: the first, then its refinement.
        let (pictures, final, bytes) = try feed("cat-progressive.jpg", step: 128, minimum: (20, 12))
        let scans = scans(of: bytes)
        #expect(pictures.count == 2)
        #expect(pictures.first.map { $0.length > scans[0].end && $0.length <= scans[0].end + 128 } == true)
        #expect(pictures.last?.image.pixels == final.pixels, "the last picture is the final decode")
    }

    @Test func aBaselineJPEGShowsItsRowsAsTheyCome() throws {
        let (pictures, final, _) = try feed("cat-baseline.jpg", step: 512)
        #expect(pictures.count >= 8, "rows arrive in many steps: \(pictures.count)")
        // The top rows are right from the first picture on; the bottom is still empty (transparent).
        let first = try #require(pictures.first?.image.pixels)
        #expect(first.pixel(x: 10, y: 0) == final.pixels.pixel(x: 10, y: 0))
        #expect(first.pixel(x: 10, y: first.height - 1).3 == 0)
        #expect(pictures.last?.image.pixels == final.pixels, "the last picture is the final decode")
    }

    @Test func anInterlacedPNGShowsEachPass() throws {
        let (pictures, final, _) = try feed("cat-interlaced.png", step: 1024)
        // Seven passes; the first ones are small enough to arrive together.
        #expect((5...7).contains(pictures.count), "one picture a pass: \(pictures.map(\.length))")
        // The first pass already covers the whole picture, in 8×8 blocks.
        let first = try #require(pictures.first?.image.pixels)
        #expect(first.pixel(x: first.width - 1, y: first.height - 1).3 == 255)
        #expect(meanDifference(first, final.pixels) > meanDifference(pictures[4].image.pixels, final.pixels))
        #expect(pictures.last?.image.pixels == final.pixels, "the last picture is the final decode")
    }

    @Test func aPlainPNGShowsItsRowsAsTheyCome() throws {
        let (pictures, final, _) = try feed("cat-plain.png", step: 4096)
        #expect(pictures.count >= 10)
        let first = try #require(pictures.first?.image.pixels)
        #expect(first.pixel(x: 0, y: 0) == final.pixels.pixel(x: 0, y: 0))
        #expect(first.pixel(x: 0, y: first.height - 1).3 == 0, "rows not yet arrived are transparent")
        #expect(pictures.last?.image.pixels == final.pixels, "the last picture is the final decode")
    }

    @Test func aPNGsLastRowIsDecodedToo() throws {
        // libspng reports the end of the image with the last row: that row is real.
        let plain = try ImageDecoder().decode(try Fixtures.data("cat-plain.png"), request: DecodeRequest())
        let interlaced = try ImageDecoder().decode(try Fixtures.data("cat-interlaced.png"), request: DecodeRequest())
        #expect(plain.pixels.pixel(x: 5, y: plain.pixels.height - 1).3 == 255)
        #expect(plain.pixels == interlaced.pixels)
    }

    @Test func formatsThatShowNothingEarlyHaveNoProgressiveDecoder() {
        #expect(ImageDecoder().makeProgressiveDecoder(for: .gif) { _ in DecodeRequest() } == nil)
    }
}
