import ImgviewSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewImaging
@testable import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The browser's image inside a tmux pane: put at the pane's place in the outer terminal by its
/// own packets, only while tmux shows the pane, and an iTerm2 image too large for one packet sent
/// in strips of cell rows.
@Suite("The browser's image in a tmux pane")
struct TmuxPanePlacementTests {
    static let size = TerminalSize(columns: 50, rows: 20)

    @Test func thePaneGeometryReadsTmuxsAnswer() {
        // The right pane of a split under a status line on top, shown.
        let shown = TmuxPaneGeometry(formatAnswer: "0,50,0,0,on,top,@1,1,0,1,0")
        #expect(shown == TmuxPaneGeometry(origin: TmuxPaneOrigin(row: 1, column: 50), window: "@1", isVisible: true))
        // Another window is current; another pane is zoomed; the pane is in copy mode: not shown.
        #expect(TmuxPaneGeometry(formatAnswer: "0,50,0,0,on,top,@1,0,0,1,0")?.isVisible == false)
        #expect(TmuxPaneGeometry(formatAnswer: "0,50,0,0,on,top,@1,1,1,0,0")?.isVisible == false)
        #expect(TmuxPaneGeometry(formatAnswer: "0,0,0,0,on,top,@1,1,1,1,0")?.isVisible == true, "the zoomed pane itself")
        #expect(TmuxPaneGeometry(formatAnswer: "0,50,0,0,on,top,@1,1,0,1,1")?.isVisible == false)
        for bad in ["", "0,50,0,0,on,top", "0,50,0,0,on,top,1,1,0,1,0", "x,50,0,0,on,top,@1,1,0,1,0"] {
            #expect(TmuxPaneGeometry(formatAnswer: bad) == nil, "\(bad)")
        }
    }

    @Test func anImagePassedThroughIsDrawnAtThePanesPlaceInTheOuterTerminal() {
        let wrapped = TerminalRoute.tmuxPassthrough.wrap(Array("\u{1B}_Ga=T,i=7,C=1;AAAA\u{1B}\\".utf8))
        let preview = GraphicsPreview(
            layout: GraphicsLayout(pixelWidth: 40, pixelHeight: 40, columns: 4, rows: 2), bytes: wrapped, graphics: .kitty, imageID: 7)
        let placed = PlacedGraphic(column: 3, row: 5, preview: preview)
        var placement = GraphicsPlacement(terminal: GraphicsTerminal(passthrough: true))
        placement.paneOrigin = TmuxPaneOrigin(row: 1, column: 50)
        let drawn = placement.update(to: placed, cleared: false, textOverwrites: false, screen: Self.size)
        // Pane cell (5, 3) is outer cell (6, 53), 1-based (7, 54); the move is inside the packet.
        #expect(
            String(decoding: drawn.after, as: UTF8.self)
                == "\u{1B}Ptmux;\u{1B}\u{1B}7\u{1B}\u{1B}[7;54H\u{1B}\u{1B}_Ga=T,i=7,C=1;AAAA\u{1B}\u{1B}\\\u{1B}\u{1B}8\u{1B}\\")
        // Moved with its pane: deleted by its id, drawn at the new place.
        placement.paneOrigin = TmuxPaneOrigin(row: 0, column: 0)
        let moved = placement.update(to: placed, cleared: true, textOverwrites: false, screen: Self.size)
        #expect(moved.steps == [.delete(imageID: 7), .draw(placed)])
        #expect(String(decoding: moved.after, as: UTF8.self).contains("\u{1B}\u{1B}[6;4H"))
        // Bytes tmux draws itself (its own sixel) stay in the pane's cells.
        let native = PlacedGraphic(
            column: 3, row: 5,
            preview: GraphicsPreview(layout: preview.layout, bytes: Array("\u{1B}Pq#0~\u{1B}\\".utf8), graphics: .sixel))
        var tmuxSixel = GraphicsPlacement(terminal: GraphicsTerminal(passthrough: true))
        tmuxSixel.paneOrigin = TmuxPaneOrigin(row: 1, column: 50)
        let plain = tmuxSixel.update(to: native, cleared: false, textOverwrites: false, screen: Self.size)
        #expect(String(decoding: plain.after, as: UTF8.self) == "\u{1B}7\u{1B}[6;4H\u{1B}Pq#0~\u{1B}\\\u{1B}8")
    }

    /// tmux 3.5a's own answers (asked unwrapped: XTVERSION, its cell size, DA1) and its client's features.
    static let tmux35Answer = Array("\u{1B}P>|tmux 3.5a\u{1B}\\\u{1B}[6;19;9t\u{1B}[?1;2;4c".utf8)
    static let tmuxEnvironment = ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color"]

    static func tmuxFacts(passthrough: Bool, features: [String]?) -> TerminalDetector.TmuxFacts {
        TerminalDetector.TmuxFacts(
            version: "3.5a", clientTerminal: "XTerm(379)", clientVersion: "XTerm(379)", allowsPassthrough: passthrough,
            clientFeatures: features)
    }

    @Test func tmuxsOwnSixelIsFoundFromItsAnswerAndItsClientsFeatures() {
        let features = ["256", "bpaste", "clipboard", "mouse", "rectfill", "RGB", "sixel", "title"]
        let native = TerminalDetectionTests.profile(
            Self.tmux35Answer, environment: Self.tmuxEnvironment, tmux: Self.tmuxFacts(passthrough: true, features: features),
            kernel: (60, 29, 600, 580))
        #expect(native.tmuxDrawsSixel && native.autoMode == .sixel)
        #expect(native.graphics.first { $0.graphics == .sixel }?.reason.contains("tmux draws sixel itself") == true)
        // The cell tmux counts an image's cells in is its own answer, not the pane's TIOCGWINSZ.
        #expect(native.cellPixels == CellPixelSize(width: 9, height: 19) && native.cellPixelsSource == "CSI 16 t, tmux's")
        // Written plain, in whole cells; the other protocols still go through passthrough.
        let terminal = GraphicsTerminal(profile: native)
        let sixel = terminal.paneOptions(.sixel, columns: 10, rows: 5)
        #expect(!sixel.passthrough && sixel.wholeCells && sixel.cell == CellPixelSize(width: 9, height: 19))
        #expect(terminal.paneOptions(.kitty, columns: 10, rows: 5).passthrough)
        #expect(!terminal.paneOptions(.kitty, columns: 10, rows: 5).wholeCells)
        // No passthrough needed for tmux's own sixel, and no advice to turn it on.
        let closed = TerminalDetectionTests.profile(
            Self.tmux35Answer, environment: Self.tmuxEnvironment, tmux: Self.tmuxFacts(passthrough: false, features: features))
        #expect(closed.tmuxDrawsSixel && closed.autoMode == .sixel && closed.advice.isEmpty)
        #expect(closed.graphics.first { $0.graphics == .sixel }?.isAvailable == true)
    }

    @Test func tmuxsOwnSixelNeedsBothItsDA1AndItsClientsSixel() {
        // tmux has sixel, its client's terminal has not (or tmux did not say): tmux would draw a box
        // of text. An unnamed terminal then has no sixel; a named one still gets it through passthrough.
        for features in [["RGB", "title"], nil] {
            let textBox = TerminalDetectionTests.profile(
                Self.tmux35Answer, environment: Self.tmuxEnvironment, tmux: Self.tmuxFacts(passthrough: true, features: features))
            #expect(!textBox.tmuxDrawsSixel && textBox.graphics.first { $0.graphics == .sixel }?.isAvailable == false)
            #expect(textBox.autoMode == .blocks)
            let facts = TerminalDetector.TmuxFacts(
                version: "3.5a", clientTerminal: "mlterm", allowsPassthrough: true, clientFeatures: features)
            let named = TerminalDetectionTests.profile(Self.tmux35Answer, environment: Self.tmuxEnvironment, tmux: facts)
            #expect(!named.tmuxDrawsSixel && named.graphics.first { $0.graphics == .sixel }?.isAvailable == true && named.passthrough)
            #expect(GraphicsTerminal(profile: named).paneOptions(.sixel, columns: 10, rows: 5).passthrough)
        }
        // tmux 3.3a: no 4 in its own DA1, no cell size of its own: passthrough, the kernel's cell.
        let old = TerminalDetectionTests.profile(
            Array("\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c".utf8), environment: Self.tmuxEnvironment,
            tmux: Self.tmuxFacts(passthrough: true, features: ["RGB", "sixel"]), kernel: (60, 29, 600, 580))
        #expect(!old.tmuxDrawsSixel && old.passthrough)
        #expect(GraphicsTerminal(profile: old).paneOptions(.sixel, columns: 10, rows: 5).passthrough)
        #expect(old.cellPixels == CellPixelSize(width: 10, height: 20) && old.cellPixelsSource == "TIOCGWINSZ")
        // The answer did not come (tmux slow, or not asked): never taken for tmux's own sixel.
        let outcome = TerminalQueryOutcome(replies: TerminalReplies(), elapsed: .milliseconds(400), status: .timedOut)
        let silent = TerminalDetector(
            environment: TerminalEnvironment(Self.tmuxEnvironment), query: outcome,
            tmux: Self.tmuxFacts(passthrough: true, features: ["sixel"])
        ).profile()
        #expect(!silent.tmuxDrawsSixel)
    }

    @Test func paddingToWholeCellsKeepsTheImageAtTheTopLeft() {
        let image = RGBImage(width: 1, height: 1, bytes: [9, 9, 9])
        let padded = GraphicsRenderer.padded(image, width: 2, height: 2, with: RGBColor(red: 1, green: 2, blue: 3))
        #expect(padded.width == 2 && padded.height == 2 && padded.bytes == [9, 9, 9, 1, 2, 3, 1, 2, 3, 1, 2, 3])
    }

    @Test func tmuxsOwnSixelIsRenderedInWholeCellsAndBandsOfTheBackground() throws {
        let background = RGBColor(red: 255, green: 0, blue: 255)
        func render(width: Int, height: Int, wholeCells: Bool = true) throws -> GraphicsPreview {
            let options = GraphicsOptions(
                graphics: .sixel, columns: 20, rows: 6, cell: CellPixelSize(width: 9, height: 19), background: background,
                wholeCells: wholeCells)
            return try GraphicsRenderer(options: options, pngEncoder: nil)
                .render(PixelBuffer(width: width, height: height, filledWith: (200, 10, 10, 255)))
        }
        // 120×60 pixels in cells of 9×19: 14 columns by 4 rows, padded to 126 wide and to 72 high,
        // the last band of six inside the 76 rows of its cells (a 78th row would make tmux count 5).
        let padded = try render(width: 120, height: 60)
        #expect(padded.layout == GraphicsLayout(pixelWidth: 120, pixelHeight: 60, columns: 14, rows: 4))
        let text = String(decoding: padded.bytes, as: UTF8.self)
        // Register 0 is the background (100;0;100 in sixel's percent): what tmux's copy leaves unset is filled with it.
        #expect(text.hasPrefix("\u{1B}P0;1;0q\"1;1;126;72#0;2;100;0;100#1;"), "\(text.prefix(40))")
        // 120×75 reaches into the last three pixel rows of its 4th row, past the band: drawn 3 rows smaller.
        let smaller = try render(width: 120, height: 75)
        #expect(smaller.layout == GraphicsLayout(pixelWidth: 115, pixelHeight: 72, columns: 13, rows: 4))
        #expect(String(decoding: smaller.bytes, as: UTF8.self).hasPrefix("\u{1B}P0;1;0q\"1;1;117;72#0;2;100;0;100#1;"))
        // Elsewhere, the image's own pixels and palette.
        let plain = try render(width: 120, height: 75, wholeCells: false)
        #expect(plain.layout == GraphicsLayout(pixelWidth: 120, pixelHeight: 75, columns: 14, rows: 4))
        #expect(!String(decoding: plain.bytes, as: UTF8.self).contains(";2;100;0;100"))
        #expect(String(decoding: plain.bytes, as: UTF8.self).hasPrefix("\u{1B}P0;1;0q\"1;1;120;75#0;"))
    }

    struct StoredPNG: PNGEncoding {
        /// A stand-in PNG: the pixels themselves, so sizes follow the image's.
        func png(_ image: RGBImage) throws(PNGEncodingError) -> Data { Data(image.bytes) }
    }

    @Test func anITermImageTooLargeForOnePacketGoesInStripsOfCellRows() throws {
        // 700×400 pixels in 70×20 cells of 10×20: 840,000 bytes, 1,120,000 in base64.
        let pixels = PixelBuffer(width: 700, height: 400, filledWith: (200, 200, 200, 255))
        var options = GraphicsOptions(
            graphics: .iterm, columns: 70, rows: 20, cell: CellPixelSize(width: 10, height: 20), passthrough: true)
        let whole = try GraphicsRenderer(options: options, pngEncoder: StoredPNG()).render(pixels)
        let packets = String(decoding: whole.bytes, as: UTF8.self).components(separatedBy: "\u{1B}Ptmux;").dropFirst()
        #expect(packets.count == 2, "\(packets.map(\.count))")
        #expect(packets.allSatisfy { $0.utf8.count < TmuxPlacement.packetLimit })
        // Each strip 10 rows high; the second drawn 10 rows below the first, inside its packet.
        #expect(packets.allSatisfy { $0.contains("width=70;height=10;") })
        #expect(packets.last?.hasPrefix("\u{1B}\u{1B}[10B\u{1B}\u{1B}]1337;") == true)
        // Outside tmux, one sequence whatever its size.
        options.passthrough = false
        let direct = try GraphicsRenderer(options: options, pngEncoder: StoredPNG()).render(pixels)
        #expect(String(decoding: direct.bytes, as: UTF8.self).components(separatedBy: "1337;").count == 2)
    }

    @Test func aStripPastTheImagesBottomIsPaddedWithTheBackground() {
        let image = RGBImage(width: 2, height: 3, bytes: [UInt8](repeating: 9, count: 18))
        let strip = GraphicsRenderer.rows(of: image, from: 2, count: 2, padding: RGBColor(red: 1, green: 2, blue: 3))
        #expect(strip.height == 2 && strip.bytes == [9, 9, 9, 9, 9, 9, 1, 2, 3, 1, 2, 3])
    }
}
