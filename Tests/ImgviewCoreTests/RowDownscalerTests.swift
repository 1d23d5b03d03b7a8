import Testing

@testable import ImgviewImaging

/// `RowDownscaler`: rows in, a whole-number reduction out, averaged in linear light.
@Suite("Row downscaler")
struct RowDownscalerTests {
    func row(_ pixels: [(UInt8, UInt8, UInt8, UInt8)]) -> [UInt8] {
        pixels.flatMap { [$0.0, $0.1, $0.2, $0.3] }
    }

    @Test func averagesInLinearLightWeightedByAlpha() {
        var scaler = RowDownscaler(sourceWidth: 4, sourceHeight: 2, covering: (2, 1), order: .inOrder)
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
        var scaler = RowDownscaler(sourceWidth: 8, sourceHeight: 8, covering: (2, 2), order: .anyOrder)
        #expect(scaler.factor == 4)
        let white = row(Array(repeating: (255, 255, 255, 255), count: 8))
        // An interlaced pass brings every other column of the top rows only.
        for y in 0..<4 { white.withUnsafeBufferPointer { scaler.add(row: y, pixels: $0, firstColumn: 0, step: 2) } }
        let out = scaler.finish()
        #expect(out.pixel(x: 0, y: 0) == (255, 255, 255, 128))
        #expect(out.pixel(x: 0, y: 1).3 == 0)
    }

    @Test func fullSizeCopiesRows() {
        var scaler = RowDownscaler(sourceWidth: 2, sourceHeight: 1, covering: nil, order: .inOrder)
        let pixels = row([(1, 2, 3, 4), (5, 6, 7, 8)])
        pixels.withUnsafeBufferPointer { scaler.add(row: 0, pixels: $0) }
        #expect(scaler.finish().bytes == pixels)
    }

    /// Rows in order (either way up) give the very bytes rows in any order give, from sums of
    /// one output row; short last blocks and rows never sent included.
    @Test(arguments: [false, true])
    func rowsInOrderGiveWhatRowsInAnyOrderGive(bottomUp: Bool) {
        let (width, height) = (23, 17)
        var generator = SystemRandomNumberGenerator()
        let rows = (0..<height).map { _ in (0..<width * 4).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        var inOrder = RowDownscaler(sourceWidth: width, sourceHeight: height, factor: 3, order: .inOrder)
        var anyOrder = RowDownscaler(sourceWidth: width, sourceHeight: height, factor: 3, order: .anyOrder)
        for y in bottomUp ? Array((0..<height).reversed()) : Array(0..<height) where y != 7 {
            rows[y].withUnsafeBufferPointer {
                inOrder.add(row: y, pixels: $0)
                anyOrder.add(row: y, pixels: $0)
            }
        }
        let (ordered, any) = (inOrder.finish(), anyOrder.finish())
        #expect(ordered.width == 8 && ordered.height == 6)
        #expect(ordered.bytes == any.bytes)
    }

    /// A row handed over again for an output row already written out (a damaged file making a
    /// decoder break its order) changes nothing there.
    @Test func aRowBackForAWrittenRowIsDropped() {
        var scaler = RowDownscaler(sourceWidth: 2, sourceHeight: 4, factor: 2, order: .inOrder)
        let white = row([(255, 255, 255, 255), (255, 255, 255, 255)])
        let black = row([(0, 0, 0, 255), (0, 0, 0, 255)])
        for y in 0..<4 { white.withUnsafeBufferPointer { scaler.add(row: y, pixels: $0) } }
        black.withUnsafeBufferPointer { scaler.add(row: 0, pixels: $0) }
        let out = scaler.finish()
        #expect(out.pixel(x: 0, y: 0) == (255, 255, 255, 255))
        #expect(out.pixel(x: 0, y: 1) == (255, 255, 255, 255))
    }
}
