import Foundation
import ImgviewSupport
import Testing

@testable import ImgviewImaging

@Suite("Pixel encoders: layout, palette, sixel, kitty, iTerm2")
struct GraphicsEncodingTests {
    /// A smooth two-way gradient with a hard-edged square: something both banding and edges show on.
    static func gradient(width: Int = 64, height: Int = 40) -> RGBImage {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let inSquare = (10..<20).contains(x) && (10..<20).contains(y)
                bytes += inSquare ? [250, 250, 250] : [UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), 90]
            }
        }
        return RGBImage(width: width, height: height, bytes: bytes)
    }

    @Test func layoutFitsTheBoxInPixelsKeepingTheAspect() {
        let cell = CellPixelSize(width: 10, height: 20)
        // A 3:2 photo in 80×24 cells (800×480 px) is limited by the height.
        #expect(
            GraphicsLayout.fitting(width: 6000, height: 4000, columns: 80, rows: 24, cell: cell)
                == GraphicsLayout(pixelWidth: 720, pixelHeight: 480, columns: 72, rows: 24))
        // A wide strip is limited by the width; a partly covered row still counts.
        #expect(
            GraphicsLayout.fitting(width: 1000, height: 100, columns: 40, rows: 24, cell: cell)
                == GraphicsLayout(pixelWidth: 400, pixelHeight: 40, columns: 40, rows: 2))
        // Small images keep their own pixels: never scaled up, as chafa and timg draw them.
        #expect(
            GraphicsLayout.fitting(width: 16, height: 12, columns: 8, rows: 3, cell: cell)
                == GraphicsLayout(pixelWidth: 16, pixelHeight: 12, columns: 2, rows: 1))
        #expect(GraphicsLayout.fitting(width: 1, height: 100_000, columns: 10, rows: 10, cell: cell).pixelWidth == 1)
    }

    @Test func scalingComposesTransparencyOverTheBackground() {
        let pixels = PixelBuffer(width: 2, height: 1, bytes: [255, 0, 0, 255, 0, 0, 0, 0])
        let image = RGBImage(scaling: pixels, toWidth: 2, height: 1, background: RGBColor(red: 0, green: 0, blue: 255))
        #expect(image.color(x: 0, y: 0) == RGBColor(red: 255, green: 0, blue: 0))
        #expect(image.color(x: 1, y: 0) == RGBColor(red: 0, green: 0, blue: 255))
    }

    @Test func aFewColoursArePaletteExactly() {
        let colours = [RGBColor(red: 255, green: 0, blue: 0), RGBColor(red: 12, green: 200, blue: 7), RGBColor(red: 1, green: 2, blue: 3)]
        let bytes = (0..<300).flatMap { index -> [UInt8] in
            let colour = colours[index % 3]
            return [colour.red, colour.green, colour.blue]
        }
        let palette = PaletteQuantizer().palette(for: RGBImage(width: 30, height: 10, bytes: bytes))
        #expect(Set(palette) == Set(colours))
    }

    @Test func aPhotoGetsAtMostTheRegistersItMayUse() {
        let image = Self.gradient()
        #expect(PaletteQuantizer(maximumColors: 16).palette(for: image).count == 16)
        let palette = PaletteQuantizer(maximumColors: 256).palette(for: image)
        #expect(palette.count > 200 && palette.count <= 256)
        #expect(palette.contains(RGBColor(red: 250, green: 250, blue: 250)), "the square's colour stands alone")
    }

    @Test func ditheringKeepsTheMeanColourOfAFlatArea() {
        // Grey 128 between a palette of black and white: dithered, about half the pixels are white.
        let palette = [RGBColor(red: 0, green: 0, blue: 0), RGBColor(red: 255, green: 255, blue: 255)]
        let flat = RGBImage(width: 40, height: 40, bytes: [UInt8](repeating: 128, count: 40 * 40 * 3))
        let plain = PaletteMapper(palette: palette, dithering: .none).indices(for: flat)
        #expect(Set(plain).count == 1, "without dithering a flat area stays one colour")
        let dithered = PaletteMapper(palette: palette, dithering: .diffusion, strength: 1).indices(for: flat)
        let white = dithered.filter { $0 == 1 }.count
        #expect(abs(white - 800) < 40)
        // Part of the error still dithers: a dark grey gets some white pixels, fewer than at full strength.
        let darkGrey = RGBImage(width: 40, height: 40, bytes: [UInt8](repeating: 100, count: 40 * 40 * 3))
        let whites = { (strength: Float) in
            PaletteMapper(palette: palette, dithering: .diffusion, strength: strength).indices(for: darkGrey).filter { $0 == 1 }.count
        }
        #expect(whites(0.5) > 100 && whites(0.5) < whites(1))
    }

    @Test(arguments: PaletteMapper.Dithering.allCases)
    func sixelDrawsEveryPixelOnceInItsPaletteColour(dithering: PaletteMapper.Dithering) throws {
        let image = Self.gradient(width: 61, height: 35)  // not a multiple of six rows
        let sequence = SixelEncoder(dithering: dithering).encode(image)
        let drawn = try SixelReader(sequence)
        #expect(drawn.width == 61 && drawn.height == 35)
        #expect(drawn.pixels.allSatisfy { $0 != nil }, "no hole")
        // Close to the source everywhere: dithering moves a pixel by a palette step at most.
        var total = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let source = image.color(x: x, y: y)
                let shown = drawn.pixels[y * image.width + x]!
                total +=
                    abs(Int(source.red) - Int(shown.red)) + abs(Int(source.green) - Int(shown.green))
                    + abs(Int(source.blue) - Int(shown.blue))
            }
        }
        #expect(Double(total) / Double(image.width * image.height) < 12)
        #expect(drawn.pixels[15 * 61 + 15] == RGBColor(red: 250, green: 250, blue: 250))
    }

    @Test func sixelCompressesRunsAndSkipsUnusedColumns() throws {
        // Left half black, right half white: each band is two runs, one per colour.
        var bytes: [UInt8] = []
        for _ in 0..<12 { bytes += [UInt8](repeating: 0, count: 50 * 3) + [UInt8](repeating: 255, count: 50 * 3) }
        let sequence = SixelEncoder(dithering: .none).encode(RGBImage(width: 100, height: 12, bytes: bytes))
        let text = String(decoding: sequence, as: UTF8.self)
        #expect(text.contains("!50~"), "a run of 50 full columns is one repeat")
        #expect(sequence.count < 120, "two bands of two runs each: \(sequence.count) bytes")
        let drawn = try SixelReader(sequence)
        #expect(drawn.pixels[0] == RGBColor(red: 0, green: 0, blue: 0) && drawn.pixels[99] == RGBColor(red: 255, green: 255, blue: 255))
    }

    @Test func sixelUsesNoMoreRegistersThanTheTerminalHas() throws {
        let drawn = try SixelReader(SixelEncoder(colorRegisters: 16).encode(Self.gradient()))
        #expect(drawn.registers.count <= 16 && drawn.registers.keys.allSatisfy { $0 < 16 })
    }

    /// The commands of a kitty graphics stream, as (control keys, payload).
    static func kittyCommands(_ bytes: [UInt8]) -> [(keys: [String: String], payload: String)] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }.map { command in
            #expect(command.hasPrefix("\u{1B}_G"))
            let body = command.dropFirst(3)
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            let keys = Dictionary(
                uniqueKeysWithValues: parts[0].split(separator: ",").map { pair in
                    let keyValue = pair.split(separator: "=", maxSplits: 1)
                    return (String(keyValue[0]), String(keyValue[1]))
                })
            return (keys, parts.count > 1 ? String(parts[1]) : "")
        }
    }

    @Test func kittySendsThePayloadInChunksUnderOneId() throws {
        let png = Data((0..<10_000).map { UInt8($0 % 251) })
        let commands = Self.kittyCommands(KittyGraphicsEncoder().display(.png(png), id: 7, movesCursor: false))
        #expect(commands.count == 4, "13,336 base64 bytes in chunks of 4096")
        let first = commands[0].keys
        #expect(first["a"] == "T" && first["i"] == "7" && first["f"] == "100" && first["q"] == "2")
        #expect(first["C"] == "1" && first["c"] == nil, "pixels as they are: no scaling to cells")
        #expect(commands.map { $0.keys["m"] } == ["1", "1", "1", "0"])
        #expect(commands.dropFirst().allSatisfy { $0.keys.count == 1 }, "later chunks carry only m")
        #expect(commands.allSatisfy { $0.payload.utf8.count <= 4096 && $0.payload.utf8.count % 4 == 0 })
        #expect(Data(base64Encoded: commands.map(\.payload).joined()) == png)
    }

    @Test func kittyRawPixelsSayTheirSize() {
        let image = RGBImage(width: 2, height: 1, bytes: [1, 2, 3, 4, 5, 6])
        let commands = Self.kittyCommands(KittyGraphicsEncoder().display(.rgb(image), id: 1))
        #expect(commands.count == 1 && commands[0].keys["f"] == "24" && commands[0].keys["s"] == "2" && commands[0].keys["v"] == "1")
        #expect(commands[0].keys["m"] == "0" && commands[0].keys["C"] == nil)
        #expect(Data(base64Encoded: commands[0].payload) == Data([1, 2, 3, 4, 5, 6]))
    }

    @Test func kittyDeletesByIdAndFreesTheData() {
        #expect(String(decoding: KittyGraphicsEncoder().delete(id: 42), as: UTF8.self) == "\u{1B}_Ga=d,d=I,i=42,q=2\u{1B}\\")
        #expect(String(decoding: KittyGraphicsEncoder().deleteAll(), as: UTF8.self) == "\u{1B}_Ga=d,d=A,q=2\u{1B}\\")
    }

    @Test func itermCarriesThePNGAndItsSizeInCells() throws {
        let png = Data((0..<300).map { UInt8($0 % 256) })
        let layout = GraphicsLayout(pixelWidth: 90, pixelHeight: 60, columns: 9, rows: 3)
        let text = String(decoding: ITermImageEncoder().display(png: png, layout: layout), as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}]1337;File=inline=1;size=300;width=9;height=3;preserveAspectRatio=1:"))
        #expect(text.hasSuffix("\u{07}"))
        let payload = text.dropFirst(text.firstIndex(of: ":")!.utf16Offset(in: text) + 1).dropLast()
        #expect(Data(base64Encoded: String(payload)) == png)
    }

    @Test func tmuxPassthroughDoublesEveryEscape() {
        let wrapped = TerminalRoute.tmuxPassthrough.wrap(Array("\u{1B}_Ga=d\u{1B}\\".utf8))
        #expect(String(decoding: wrapped, as: UTF8.self) == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d\u{1B}\u{1B}\\\u{1B}\\")
        let kitty = KittyGraphicsEncoder(passthrough: true).delete(id: 1)
        #expect(kitty.starts(with: Array("\u{1B}Ptmux;\u{1B}\u{1B}_G".utf8)))
    }
}

@Suite("GraphicsRenderer: one image to one protocol's bytes")
struct GraphicsRendererTests {
    /// Stands in for libspng, which Core cannot import: the PNG's content is not what is tested here.
    struct FixedPNG: PNGEncoding {
        func png(_ image: RGBImage) throws(PNGEncodingError) -> Data { Data("\(image.width)x\(image.height)".utf8) }
    }

    let photo = PixelBuffer(width: 300, height: 200, filledWith: (200, 40, 40, 255))

    @Test func sixelIsScaledToTheBoxInPixels() throws {
        let renderer = GraphicsRenderer(
            options: GraphicsOptions(graphics: .sixel, columns: 20, rows: 5, cell: CellPixelSize(width: 8, height: 16)),
            pngEncoder: FixedPNG())
        #expect(renderer.minimumDecodeSize(width: 3000, height: 2000) == (180, 120), "one and a half times the box")
        #expect(renderer.minimumDecodeSize(width: 150, height: 100) == (150, 100), "never more than the image")
        let preview = try renderer.render(photo)
        #expect(preview.layout == GraphicsLayout(pixelWidth: 120, pixelHeight: 80, columns: 15, rows: 5))
        let drawn = try SixelReader(preview.bytes)
        #expect(
            drawn.width == 120 && drawn.height == 80
                && drawn.pixels.allSatisfy { $0 == SixelEncoder.percentRounded(RGBColor(red: 200, green: 40, blue: 40)) })
    }

    @Test func kittyCarriesRawPixelsAndITermThePNGOfTheScaledImage() throws {
        var options = GraphicsOptions(graphics: .kitty, columns: 10, rows: 10, cell: CellPixelSize(width: 10, height: 20), imageID: 9)
        let kitty = try GraphicsRenderer(options: options, pngEncoder: FixedPNG()).render(photo)
        let commands = GraphicsEncodingTests.kittyCommands(kitty.bytes)
        #expect(commands[0].keys["i"] == "9" && commands[0].keys["f"] == "24" && commands[0].keys["s"] == "100")
        #expect(Data(base64Encoded: commands.map(\.payload).joined())?.count == 100 * 67 * 3, "raw RGB, not the PNG")
        options.graphics = .iterm
        options.passthrough = true
        let iterm = try GraphicsRenderer(options: options, pngEncoder: FixedPNG()).render(photo)
        #expect(iterm.bytes.starts(with: Array("\u{1B}Ptmux;\u{1B}\u{1B}]1337;File=inline=1;size=6;width=10;height=4".utf8)))
    }

    @Test func transparencyIsDrawnOverTheTerminalsBackground() throws {
        let clear = PixelBuffer(width: 10, height: 10, filledWith: (0, 0, 0, 0))
        let options = GraphicsOptions(
            graphics: .sixel, columns: 1, rows: 1, cell: CellPixelSize(width: 10, height: 10),
            background: RGBColor(red: 255, green: 255, blue: 255))
        let drawn = try SixelReader(try GraphicsRenderer(options: options, pngEncoder: FixedPNG()).render(clear).bytes)
        #expect(drawn.pixels.allSatisfy { $0 == RGBColor(red: 255, green: 255, blue: 255) })
    }
}

@Suite("Nearest palette colour")
struct NearestColorSearchTests {
    @Test func theOrderedSearchFindsWhatTryingEveryColourFinds() {
        var generator = SystemRandomNumberGenerator()
        let palette = (0..<200).map { _ in
            RGBColor(
                red: .random(in: 0...255, using: &generator), green: .random(in: 0...255, using: &generator),
                blue: .random(in: 0...255, using: &generator))
        }
        let search = NearestColorSearch(palette: palette)
        for _ in 0..<2000 {
            let (red, green, blue) = (Int32.random(in: 0...255), Int32.random(in: 0...255), Int32.random(in: 0...255))
            let distances = palette.map { colour -> Int32 in
                let (dr, dg, db) = (Int32(colour.red) - red, Int32(colour.green) - green, Int32(colour.blue) - blue)
                return 3 * dr * dr + 4 * dg * dg + 2 * db * db
            }
            let found = search.nearest(red, green, blue)
            #expect(distances[found] == distances.min()!)
        }
    }
}

@Suite("Lanczos scaling for pixel previews")
struct LanczosScalerTests {
    @Test func flatAreasStayFlatAndTransparencyTakesTheBackground() {
        let half = PixelBuffer(width: 40, height: 10, bytes: (0..<400).flatMap { $0 % 40 < 20 ? [200, 30, 30, 255] : [0, 0, 0, 0] })
        let image = LanczosScaler(background: RGBColor(red: 0, green: 0, blue: 255)).scale(half, toWidth: 16, height: 4)
        #expect(image.color(x: 2, y: 2) == RGBColor(red: 200, green: 30, blue: 30))
        #expect(image.color(x: 13, y: 1) == RGBColor(red: 0, green: 0, blue: 255))
    }

    @Test func anEdgeStaysSharperThanAreaAveragingLeavesIt() {
        // A black/white edge scaled 4:1: the far sides stay exact, and the step across it is at least as steep.
        let edge = PixelBuffer(width: 64, height: 4, bytes: (0..<256).flatMap { $0 % 64 < 30 ? [0, 0, 0, 255] : [255, 255, 255, 255] })
        let lanczos = LanczosScaler(background: RGBColor(red: 0, green: 0, blue: 0)).scale(edge, toWidth: 16, height: 1)
        let area = RGBImage(scaling: edge, toWidth: 16, height: 1, background: RGBColor(red: 0, green: 0, blue: 0))
        #expect(lanczos.color(x: 0, y: 0) == RGBColor(red: 0, green: 0, blue: 0))
        #expect(lanczos.color(x: 15, y: 0) == RGBColor(red: 255, green: 255, blue: 255))
        let contrast = { (image: RGBImage) in Int(image.color(x: 8, y: 0).red) - Int(image.color(x: 6, y: 0).red) }
        #expect(contrast(lanczos) >= contrast(area))
    }

    @Test(arguments: [(97, 61, 40, 23), (300, 200, 120, 80), (50, 50, 200, 2), (10, 300, 5, 160)])
    func twoBandsAtOnceGiveTheSameBytesAsOne(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        // A pattern with detail everywhere, so a row read twice or missed at the seam would show.
        let bytes = (0..<sourceWidth * sourceHeight).flatMap { index -> [UInt8] in
            let (x, y) = (index % sourceWidth, index / sourceWidth)
            return [UInt8((x * 37 + y * 11) % 256), UInt8((x * y) % 256), UInt8((x ^ y) % 256), UInt8(128 + (x + y) % 128)]
        }
        let pixels = PixelBuffer(width: sourceWidth, height: sourceHeight, bytes: bytes)
        let background = RGBColor(red: 10, green: 20, blue: 30)
        let one = LanczosScaler(background: background, workPerExtraBand: .max).scale(pixels, toWidth: width, height: height)
        let two = LanczosScaler(background: background, workPerExtraBand: 0).scale(pixels, toWidth: width, height: height)
        #expect(one.bytes == two.bytes ? true : false)
        #expect(one.width == width && one.height == height)
    }
}
