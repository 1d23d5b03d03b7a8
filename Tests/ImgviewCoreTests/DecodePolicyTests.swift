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

    /// The size libjpeg gives a `width × height` JPEG at its smallest scale (of 1/8 … 8/8) whose
    /// both sides reach `minimum` (as `JPEGDecoder` chooses it: libjpeg rounds up), in eighths.
    static func libjpegEighths(width: Int, height: Int, covering minimum: (width: Int, height: Int)) -> Int {
        (1...8).first { ($0 * width + 7) / 8 >= minimum.width && ($0 * height + 7) / 8 >= minimum.height } ?? 8
    }

    @Test func aLargeThumbnailOfAPhotoAsksForAbout256By160SoLibjpegDecodesAnEighth() {
        let header = ImageHeader(format: .jpeg, storedWidth: 3840, storedHeight: 2400, orientation: .up)
        // A grid cell of 256 px in blocks (26×13 cells): the thumbnail's own size, 256×160, less
        // the pixel or two a writer may round away; the box needs fewer.
        let text = RenderOptions(columns: 26, rows: 13, mode: .blocks, cellAspect: 2)
        let minimum = DecodePolicy.minimumSize(of: header, for: text, thumbnail: .large)
        #expect((252...256).contains(minimum.width) && (156...160).contains(minimum.height), "\(minimum)")
        #expect(Self.libjpegEighths(width: 3840, height: 2400, covering: minimum) == 1, "480×300 covers it")
        #expect(DecodePolicy.minimumSize(of: header, for: text).width < minimum.width, "more than the box alone asks")
        // In kitty's pixels (260×260 px a cell): the box's need with room to spare, 1.5× the 260×163
        // shown, is more than the thumbnail; libjpeg's eighth still covers it.
        var pixels = text
        pixels.graphics = GraphicsOptions(graphics: .kitty, columns: 26, rows: 13, cell: CellPixelSize(width: 10, height: 20))
        let pixelMinimum = DecodePolicy.minimumSize(of: header, for: pixels, thumbnail: .large)
        #expect(pixelMinimum.width >= 256 && pixelMinimum.height >= 160 && pixelMinimum.width <= 480 && pixelMinimum.height <= 300)
        #expect(Self.libjpegEighths(width: 3840, height: 2400, covering: pixelMinimum) == 1)
    }

    @Test func blocksAskTheSameWhetherOrNotTheModeCanChange() {
        let options = RenderOptions(columns: 80, rows: 24, mode: .blocks, symbols: .quad, cellAspect: 2)
        let once = DecodePolicy.minimumSize(of: Self.photo, for: options, forEveryMode: false)
        let switchable = DecodePolicy.minimumSize(of: Self.photo, for: options)
        #expect(once == switchable)
    }
}
