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
