import Testing

@testable import ImgviewImaging
@testable import ImgviewPipeline

/// How many pixels a text preview asks a decoder for: the mode's samples, seven of block
/// symbols' eight, and the blocks mode's only where the mode can change.
@Suite("Decode policy")
struct DecodePolicyTests {
    static let photo = ImageHeader(format: .jpeg, storedWidth: 6000, storedHeight: 4000, orientation: .up)

    @Test func blockSymbolsAskSevenPixelsOfACellsEightSoAJPEGsEighthScaleServesAHundredColumns() {
        let options = RenderOptions(columns: 100, rows: 40, mode: .blocks, symbols: .quad, cellAspect: 2)
        let grid = options.fittedGrid(width: 6000, height: 4000)
        let minimum = DecodePolicy.minimumSize(of: Self.photo, for: options)
        #expect(minimum.width == grid.columns * 7 && minimum.height == grid.rows * 7)
        #expect(minimum.width <= 6000 / 8 && minimum.height <= 4000 / 8, "1/8 of the photo covers it: \(minimum)")
        // The renderer still reads eight per cell from them.
        #expect(PreviewRenderer(options: options).samplesPerCell == (8, 8))
    }

    @Test func sextantsAskTheirOwnSamples() {
        let options = RenderOptions(columns: 100, rows: 40, mode: .blocks, symbols: .sextant, cellAspect: 2)
        let grid = options.fittedGrid(width: 6000, height: 4000)
        let minimum = DecodePolicy.minimumSize(of: Self.photo, for: options)
        #expect(minimum.width == grid.columns * 2 && minimum.height == grid.rows * 6)
    }

    @Test func anASCIIPreviewMadeOnceAsksOnlyForASCIIsSamples() {
        let options = RenderOptions(columns: 80, rows: 24, mode: .ascii, colors: .none, symbols: .quad, cellAspect: 2)
        let header = ImageHeader(format: .jpeg, storedWidth: 3840, storedHeight: 2400, orientation: .up)
        let grid = options.fittedGrid(width: 3840, height: 2400)
        let once = DecodePolicy.minimumSize(of: header, for: options, forEveryMode: false)
        #expect(once.width == grid.columns * 2 * AsciiRenderer.subColumns && once.height == grid.rows * 2 * AsciiRenderer.subRows)
        // Where `m` can switch to blocks, the same pixels must serve them without a second decode.
        let switchable = DecodePolicy.minimumSize(of: header, for: options)
        #expect(switchable.width == grid.columns * 7 && switchable.height == grid.rows * 7)
        #expect(once.width < switchable.width)
    }

    @Test func blocksAskTheSameWhetherOrNotTheModeCanChange() {
        let options = RenderOptions(columns: 80, rows: 24, mode: .blocks, symbols: .quad, cellAspect: 2)
        let once = DecodePolicy.minimumSize(of: Self.photo, for: options, forEveryMode: false)
        let switchable = DecodePolicy.minimumSize(of: Self.photo, for: options)
        #expect(once == switchable)
    }
}
