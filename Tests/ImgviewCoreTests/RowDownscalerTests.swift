import Testing

@testable import ImgviewImaging

/// `RowDownscaler`: rows in, a whole-number reduction out, averaged in linear light.
@Suite("Row downscaler")
struct RowDownscalerTests {
    func row(_ pixels: [(UInt8, UInt8, UInt8, UInt8)]) -> [UInt8] {
        pixels.flatMap { [$0.0, $0.1, $0.2, $0.3] }
    }

    @Test func averagesInLinearLightWeightedByAlpha() {
        var scaler = RowDownscaler(sourceWidth: 4, sourceHeight: 2, covering: (2, 1))
        #expect(scaler.factor == 2 && scaler.width == 2 && scaler.height == 1)
        let top = row([(255, 255, 255, 255), (0, 0, 0, 255), (255, 0, 0, 255), (0, 0, 255, 0)])
        let bottom = row([(255, 255, 255, 255), (0, 0, 0, 255), (255, 0, 0, 255), (0, 0, 255, 0)])
        top.withUnsafeBufferPointer { scaler.add(row: 0, pixels: $0) }
        bottom.withUnsafeBufferPointer { scaler.add(row: 1, pixels: $0) }
        let out = scaler.finish()
        // Half white, half black in linear light is 0.5, which sRGB writes as 188, not 128.
        #expect(out.pixel(x: 0, y: 0) == (188, 188, 188, 255))
        // Transparent pixels add no colour, only transparency.
        #expect(out.pixel(x: 1, y: 0) == (255, 0, 0, 128))
    }

    @Test func rowsThatNeverArriveAreTransparentAndPassesFillTheirColumns() {
        var scaler = RowDownscaler(sourceWidth: 8, sourceHeight: 8, covering: (2, 2))
        #expect(scaler.factor == 4)
        let white = row(Array(repeating: (255, 255, 255, 255), count: 8))
        // An interlaced pass brings every other column of the top rows only.
        for y in 0..<4 { white.withUnsafeBufferPointer { scaler.add(row: y, pixels: $0, firstColumn: 0, step: 2) } }
        let out = scaler.finish()
        #expect(out.pixel(x: 0, y: 0) == (255, 255, 255, 128))
        #expect(out.pixel(x: 0, y: 1).3 == 0)
    }

    @Test func fullSizeCopiesRows() {
        var scaler = RowDownscaler(sourceWidth: 2, sourceHeight: 1, covering: nil)
        let pixels = row([(1, 2, 3, 4), (5, 6, 7, 8)])
        pixels.withUnsafeBufferPointer { scaler.add(row: 0, pixels: $0) }
        #expect(scaler.finish().bytes == pixels)
    }
}
