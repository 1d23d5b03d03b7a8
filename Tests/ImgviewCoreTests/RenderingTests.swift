import Testing

@testable import ImgviewImaging

@Suite("Rendering stages")
struct RenderingTests {
    @Test func fitsTheBoxKeepingTheAspect() {
        let options = RenderOptions(columns: 80, rows: 24)
        #expect(options.fittedGrid(width: 6000, height: 4000) == (72, 24))
        #expect(options.fittedGrid(width: 4000, height: 1000) == (80, 10))
        #expect(RenderOptions(columns: 80, rows: 24, cellAspect: 1).fittedGrid(width: 100, height: 100) == (24, 24))
        #expect(options.fittedGrid(width: 1, height: 10_000) == (1, 24), "never zero columns")
    }

    @Test func areaAveragingHappensInLinearLight() {
        // One black and one white pixel average to half the light, which is sRGB 188, not 128.
        let pixels = PixelBuffer(width: 2, height: 1, bytes: [0, 0, 0, 255, 255, 255, 255, 255])
        let scaled = AreaScaler().scale(pixels, toWidth: 1, height: 1)
        #expect(abs(scaled.values[0] - 0.5) < 0.001)
        #expect(scaled.color(x: 0, y: 0).rgb.red == 188)
    }

    @Test func fractionalAreasAreWeighted() {
        // Three pixels (white, white, black) into two samples of 1.5 pixels each.
        let pixels = PixelBuffer(width: 3, height: 1, bytes: [255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255])
        let scaled = AreaScaler().scale(pixels, toWidth: 2, height: 1)
        #expect(abs(scaled.values[0] - 1) < 0.001)
        #expect(abs(scaled.values[3] - 1.0 / 3) < 0.001)
    }

    @Test func upscalingRepeatsPixels() {
        let pixels = PixelBuffer(width: 1, height: 1, filledWith: (255, 0, 0, 255))
        let scaled = AreaScaler().scale(pixels, toWidth: 3, height: 2)
        #expect((0..<6).allSatisfy { scaled.color(x: $0 % 3, y: $0 / 3).rgb == RGBColor(red: 255, green: 0, blue: 0) })
    }

    @Test func transparencyIsComposedOverTheBackground() {
        let pixels = PixelBuffer(width: 1, height: 1, filledWith: (255, 0, 0, 0))
        let onBlack = AreaScaler().scale(pixels, toWidth: 1, height: 1)
        #expect(onBlack.color(x: 0, y: 0).rgb == RGBColor(red: 0, green: 0, blue: 0))
        let onWhite = AreaScaler(background: RGBColor(red: 255, green: 255, blue: 255)).scale(pixels, toWidth: 1, height: 1)
        #expect(onWhite.color(x: 0, y: 0).rgb == RGBColor(red: 255, green: 255, blue: 255))
        let half = AreaScaler().scale(PixelBuffer(width: 1, height: 1, filledWith: (255, 255, 255, 128)), toWidth: 1, height: 1)
        #expect(abs(half.values[0] - 128.0 / 255) < 0.01, "alpha mixes light, not sRGB values")
    }

    @Test func colourModeFollowsTheEnvironment() {
        #expect(ColorMode.detect(environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"]) == .none)
        #expect(ColorMode.detect(environment: ["NO_COLOR": "", "COLORTERM": "truecolor"]) == .full)
        #expect(ColorMode.detect(environment: ["COLORTERM": "24bit", "TERM": "xterm"]) == .full)
        // The browser: as `show`, whatever colours terminfo names, unless terminfo names more.
        #expect(ColorMode.detect(environment: ["TERM": "xterm"], terminfo: .none) == .sixteen)
        #expect(ColorMode.detect(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"], terminfo: .twoFiftySix) == .full)
        #expect(ColorMode.detect(environment: ["TERM": "xterm-direct"], terminfo: .full) == .full)
        #expect(ColorMode.detect(environment: ["TERM": "xterm", "NO_COLOR": "1"], terminfo: .none) == .none)
        #expect(ColorMode.detect(environment: ["TERM": "xterm-256color"]) == .twoFiftySix)
        #expect(ColorMode.detect(environment: ["TERM": "xterm"]) == .sixteen)
        #expect(ColorMode.detect(environment: ["TERM": "dumb"]) == .none)
        #expect(ColorMode.detect(environment: [:]) == .none)
    }

    @Test func paletteMatchingIsPerceptual() {
        let palette = XtermPalette.twoFiftySix
        #expect(palette.indices[palette.nearest(RGBColor(red: 255, green: 0, blue: 0).linear)] == 196)
        #expect(palette.indices[palette.nearest(RGBColor(red: 128, green: 128, blue: 128).linear)] == 244)
        #expect(palette.indices[palette.nearest(RGBColor(red: 0, green: 0, blue: 0).linear)] == 16)
        let sixteen = XtermPalette.sixteen
        #expect(sixteen.indices[sixteen.nearest(RGBColor(red: 250, green: 250, blue: 250).linear)] == 15)
    }

    @Test func asciiPicksGlyphsByShapeNotOnlyByTone() {
        // One cell, lit only in its top quarter: a shape match picks a glyph inked at the top.
        var values = [Float](repeating: 0, count: 2 * 4 * 3)
        for index in 0..<6 { values[index] = 1 }
        let grid = AsciiRenderer().render(LinearImage(width: 2, height: 4, values: values), columns: 1, rows: 1, colors: .none)
        let glyph = AsciiGlyphTable.glyphs.first { $0.character == grid[0, 0].character }!
        #expect(glyph.coverage[0] + glyph.coverage[1] > glyph.coverage[6] + glyph.coverage[7])
        let dark = AsciiRenderer().render(
            LinearImage(width: 2, height: 4, values: [Float](repeating: 0, count: 24)), columns: 1, rows: 1, colors: .none)
        #expect(dark[0, 0].character == " ")
    }

    @Test func blocksSplitACellAlongItsEdge() {
        // Top half white, bottom half black: an upper half block, or a lower one with the colours swapped.
        var values = [Float](repeating: 0, count: 8 * 8 * 3)
        for index in 0..<(8 * 4 * 3) { values[index] = 1 }
        let cell = BlockRenderer().render(LinearImage(width: 8, height: 8, values: values), columns: 1, rows: 1, colors: .full)[0, 0]
        let white = TerminalColor.rgb(RGBColor(red: 255, green: 255, blue: 255))
        let black = TerminalColor.rgb(RGBColor(red: 0, green: 0, blue: 0))
        #expect(
            (cell.character == "▀" && cell.foreground == white && cell.background == black)
                || (cell.character == "▄" && cell.foreground == black && cell.background == white))
        let mono = BlockRenderer().render(LinearImage(width: 8, height: 8, values: values), columns: 1, rows: 1, colors: .none)[0, 0]
        #expect(mono.character == "▀" && mono.foreground == .default)
    }

    @Test func printerSendsColoursOnlyOnChangeAndResetsEachLine() {
        let red = TerminalColor.rgb(RGBColor(red: 255, green: 0, blue: 0))
        let grid = CellGrid(
            columns: 2, rows: 2,
            cells: [
                Cell(character: "a", foreground: red), Cell(character: "b", foreground: red),
                Cell(character: "c", background: .indexed(4)), Cell(character: "d", background: .indexed(200)),
            ])
        #expect(AnsiPrinter().text(for: grid) == "\u{1B}[38;2;255;0;0mab\u{1B}[0m\n\u{1B}[44mc\u{1B}[48;5;200md\u{1B}[0m\n")
        #expect(AnsiPrinter().text(for: CellGrid(columns: 1, rows: 1, cells: [Cell(character: "x")])) == "x\n")
    }

    /// Pixels with detail everywhere and every kind of alpha (opaque, clear, between), so a row
    /// read twice or missed at a seam, or a shortcut that composes differently, would show.
    static func detailedPixels(width: Int, height: Int) -> PixelBuffer {
        let bytes = (0..<width * height).flatMap { index -> [UInt8] in
            let (x, y) = (index % width, index / width)
            let alpha: UInt8 = (x + y) % 5 == 0 ? 0 : (x * y) % 7 == 0 ? UInt8(60 + (x + y) % 190) : 255
            return [UInt8((x * 37 + y * 11) % 256), UInt8((x * y) % 256), UInt8((x ^ y) % 256), alpha]
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }

    @Test(arguments: [(97, 61, 40, 23), (300, 200, 120, 80), (50, 50, 200, 2), (10, 300, 5, 160), (64, 90, 64, 40)])
    func areaScalingInTwoBandsGivesTheSameValuesAsOne(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        let pixels = Self.detailedPixels(width: sourceWidth, height: sourceHeight)
        let background = RGBColor(red: 10, green: 20, blue: 30)
        let one = AreaScaler(background: background, readsPerExtraBand: .max).scale(pixels, toWidth: width, height: height)
        let two = AreaScaler(background: background, readsPerExtraBand: 0).scale(pixels, toWidth: width, height: height)
        #expect(one.values == two.values ? true : false)
    }

    @Test(arguments: [(64, 90, 64, 40), (64, 90, 32, 40), (33, 20, 33, 60)])
    func areaScalingMatchesTheSumsItStandsFor(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        // Each sample the mean of what it covers, composed over the background first: the first
        // and last cases keep the width as it is (one pixel a sample), the middle halves it.
        let pixels = Self.detailedPixels(width: sourceWidth, height: sourceHeight)
        let background = RGBColor(red: 200, green: 90, blue: 10)
        let scaled = AreaScaler(background: background).scale(pixels, toWidth: width, height: height)
        let horizontal = AreaScaler.contributions(source: sourceWidth, destination: width)
        let vertical = AreaScaler.contributions(source: sourceHeight, destination: height)
        let linearBackground = background.linear
        var largest: Float = 0
        for y in 0..<height {
            for x in 0..<width {
                var expected = (Float(0), Float(0), Float(0))
                for across in horizontal.ranges[x] {
                    for down in vertical.ranges[y] {
                        let weight = horizontal.weights[across] * vertical.weights[down]
                        let index = (vertical.sources[down] * sourceWidth + horizontal.sources[across]) * 4
                        let alpha = Float(pixels.bytes[index + 3]) / 255
                        let light = (0..<3).map { SRGB.toLinear[Int(pixels.bytes[index + $0])] * alpha }
                        expected.0 += weight * (light[0] + linearBackground.red * (1 - alpha))
                        expected.1 += weight * (light[1] + linearBackground.green * (1 - alpha))
                        expected.2 += weight * (light[2] + linearBackground.blue * (1 - alpha))
                    }
                }
                let found = scaled.color(x: x, y: y)
                largest = max(largest, abs(found.red - expected.0), abs(found.green - expected.1), abs(found.blue - expected.2))
            }
        }
        #expect(largest < 1e-5)
    }

    @Test(arguments: [BlockSymbols.quad, .sextant, .block], [ColorMode.full, .twoFiftySix, .sixteen, .none])
    func blocksInTwoBandsGiveTheSameCellsAsOne(symbols: BlockSymbols, colors: ColorMode) {
        let image = BlockSymbolsTests.card(columns: 31, rows: 9, symbols: symbols)
        let one = BlockRenderer(symbols: symbols, samplesPerExtraBand: .max).render(image, columns: 31, rows: 9, colors: colors)
        let two = BlockRenderer(symbols: symbols, samplesPerExtraBand: 0).render(image, columns: 31, rows: 9, colors: colors)
        #expect(one.cells == two.cells)
        #expect(Set(one.cells.map(\.character)).count > 1, "the picture has detail to draw")
    }

    @Test(arguments: [BlockSymbols.quad, .sextant, .block])
    func everyPatternsRectanglesCoverItsSamples(symbols: BlockSymbols) {
        // The running-sum rectangles add up to the same as the samples under each pattern's mask.
        let grid = BlockPattern.grid(for: symbols)
        let patterns = BlockPattern.patterns(for: symbols)
        let rectangles = SampleRectangles(masks: patterns.map(\.mask), columns: grid.columns, rows: grid.rows)
        let pixels = Self.detailedPixels(width: 3 * grid.columns, height: 2 * grid.rows)
        let image = AreaScaler().scale(pixels, toWidth: pixels.width, height: pixels.height)
        var samples = CellSamples(columns: grid.columns, rows: grid.rows)
        for (column, row) in [(0, 0), (1, 1), (2, 0)] {
            samples.load(image, column: column, row: row)
            for (index, pattern) in patterns.enumerated() {
                var expected = SIMD8<Float>()
                for bit in 0..<samples.count where pattern.mask & (1 << UInt64(bit)) != 0 { expected += samples.samples[bit] }
                let difference = samples.sum(over: rectangles, pattern: index) - expected
                #expect((difference * difference).max() < 1e-8, "\(pattern.character)")
            }
        }
        // Halves, quadrants and eighths are one or two rectangles each (a sextant up to three).
        #expect(rectangles.ranges.allSatisfy { $0.count <= (symbols == .sextant ? 3 : 2) })
    }
}
