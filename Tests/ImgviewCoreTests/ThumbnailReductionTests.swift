import Testing

@testable import ImgviewImaging

/// `PixelBuffer.reduced`, what a lasting thumbnail is made with: each destination pixel the
/// rounded average of its box of source pixels, alpha included.
@Suite("Reducing pixels to a thumbnail's size")
struct ThumbnailReductionTests {
    /// The average of each destination pixel's box, written out plainly, one pixel at a time.
    static func reference(_ source: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8]()
        for y in 0..<height {
            let top = y * source.height / height
            let bottom = max(top + 1, (y + 1) * source.height / height)
            for x in 0..<width {
                let left = x * source.width / width
                let right = max(left + 1, (x + 1) * source.width / width)
                var sums = [Int](repeating: 0, count: 4)
                for row in top..<bottom {
                    for column in left..<right {
                        for channel in 0..<4 { sums[channel] += Int(source.bytes[(row * source.width + column) * 4 + channel]) }
                    }
                }
                let count = (bottom - top) * (right - left)
                bytes += sums.map { UInt8(($0 + count / 2) / count) }
            }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }

    @Test func eachPixelIsTheRoundedAverageOfItsBox() {
        var generator = SystemRandomNumberGenerator()
        let source = PixelBuffer(
            width: 97, height: 61, bytes: (0..<(97 * 61 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for (width, height) in [(48, 30), (10, 7), (96, 60), (1, 1), (97, 20), (33, 61)] {
            #expect(
                source.reduced(toWidth: width, height: height) == Self.reference(source, width: width, height: height), "\(width)×\(height)"
            )
        }
    }

    @Test func neverEnlargesAndKeepsTheSameSize() {
        let source = PixelBuffer(width: 4, height: 3, filledWith: (10, 20, 30, 40))
        #expect(source.reduced(toWidth: 4, height: 3) == source)
        #expect(source.reduced(toWidth: 8, height: 9) == source)
        #expect(source.reduced(toWidth: 2, height: 9).width == 2 && source.reduced(toWidth: 2, height: 9).height == 3)
    }

    @Test func aPhotographsReductionToTheLargeSize() {
        // 480×300 (a 3840×2400 JPEG at 1/8) to 256×160, the contact sheet's case: boxes of 1 and 2 pixels.
        let source = PixelBuffer(
            width: 480, height: 300, bytes: (0..<(480 * 300 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
        #expect(source.reduced(toWidth: 256, height: 160) == Self.reference(source, width: 256, height: 160))
    }
}
