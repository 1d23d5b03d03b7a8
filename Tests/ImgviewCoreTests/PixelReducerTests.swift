import Testing

@testable import ImgviewImaging

@Suite("Reducing pixels by a whole factor")
struct PixelReducerTests {
    @Test func theFactorIsTheLargestThatStillCoversTwiceTheMinimum() {
        #expect(PixelReducer.factor(width: 640, height: 480, covering: nil) == 1)
        #expect(PixelReducer.factor(width: 640, height: 480, covering: (40, 24)) == 8)
        #expect(PixelReducer.factor(width: 640, height: 480, covering: (50, 24)) == 6)
        #expect(PixelReducer.factor(width: 640, height: 480, covering: (400, 300)) == 1)
        #expect(PixelReducer.factor(width: 640, height: 480, covering: (1000, 1000)) == 1, "never enlarges")
        #expect(PixelReducer.factor(width: 640, height: 480, covering: (0, 0)) == 480, "a zero minimum is one pixel")
        for factor in 1...9 {
            let size = PixelReducer.reducedSize(width: 640, height: 480, factor: factor)
            #expect(size.width * factor >= 640 && size.height * factor >= 480)
        }
    }

    /// Beside a library's full-size buffers, twice the box when both fit the budget; else the
    /// smallest reduction that fits, no further than covering the box once.
    @Test func besideALibrarysBuffersTheOutputShrinksToFitNoFurtherThanTheBox() {
        // A 4242² lossless WebP (72 MB of libwebp's pixels) full screen: twice the box is full size.
        let box = (width: 1072, height: 536)
        #expect(PixelReducer.factor(width: 4242, height: 4242, covering: box) == 1)
        #expect(PixelReducer.factor(width: 4242, height: 4242, covering: box, beside: 71_975_000, within: 72_000_000) == 3)
        // Room for a 1414² output (8 MB) beside 40 MB: factor 2 (2121², 18 MB) fits too.
        #expect(PixelReducer.factor(width: 4242, height: 4242, covering: box, beside: 40_000_000, within: 72_000_000) == 2)
        // Room for the full size: as without the library.
        #expect(PixelReducer.factor(width: 2000, height: 2000, covering: box, beside: 10_000_000, within: 72_000_000) == 1)
        // Small boxes already reduce further than the budget needs.
        #expect(PixelReducer.factor(width: 4242, height: 4242, covering: (320, 160), beside: 71_975_000, within: 72_000_000) == 6)
        #expect(PixelReducer.factor(width: 4242, height: 4242, covering: nil, beside: 71_975_000, within: 72_000_000) == 1)
    }

    @Test func averagesInLinearLightWeightedByAlpha() {
        // 2×2 blocks: black and white (linear mean 0.5 is sRGB 188, not 128); opaque red next to a
        // transparent green, whose colour must not bleed in; and a wholly transparent block.
        let pixels: [UInt8] = [
            0, 0, 0, 255, 255, 255, 255, 255, 255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            255, 255, 255, 255, 0, 0, 0, 255, 255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        let reduced = pixels.withUnsafeBufferPointer { PixelReducer.reduce($0, width: 6, height: 2, factor: 2) }
        #expect(reduced.width == 3 && reduced.height == 1)
        let grey = reduced.pixel(x: 0, y: 0)
        #expect(grey.0 >= 186 && grey.0 <= 190 && grey.0 == grey.1 && grey.3 == 255)
        #expect(reduced.pixel(x: 1, y: 0) == (255, 0, 0, 128))
        #expect(reduced.pixel(x: 2, y: 0) == (0, 0, 0, 0))
    }

    @Test func edgeBlocksAverageWhatTheyHave() {
        // 3×1 by 2: the last block holds one pixel.
        let pixels: [UInt8] = [10, 10, 10, 255, 10, 10, 10, 255, 200, 100, 50, 255]
        let reduced = pixels.withUnsafeBufferPointer { PixelReducer.reduce($0, width: 3, height: 1, factor: 2) }
        #expect(reduced.width == 2 && reduced.height == 1)
        #expect(reduced.pixel(x: 1, y: 0) == (200, 100, 50, 255))
    }

    @Test func factorOneCopies() {
        let picture = PixelBuffer(width: 3, height: 2, filledWith: (1, 2, 3, 4))
        let copy = picture.bytes.withUnsafeBufferPointer { PixelReducer.reduce($0, width: 3, height: 2, factor: 1) }
        #expect(copy == picture)
    }
}
