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
}
