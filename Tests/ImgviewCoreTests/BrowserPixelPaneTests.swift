import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewTerminalDetection

/// The browser's pane in a pixel mode, with the spy view: `m` cycles the modes the terminal
/// offers, the pipeline renders the pixels, and `GraphicsPlacement`, fed the frames the spy's
/// states compose to, deletes or erases each image as it goes and draws the next.
@MainActor
@Suite("Browser pixel pane")
struct BrowserPixelPaneTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let images = (0..<3).map { AppImage(name: "image\($0)", url: URL(string: "http://example.test/\($0).png")!) }
    let pipeline: ImagePipeline
    let terminal = GraphicsTerminal(cell: CellPixelSize(width: 10, height: 20), synchronizedOutput: true)
    let size = TerminalSize(columns: 100, rows: 30)

    init() {
        pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
    }

    func url(_ index: Int) -> URL { images[index].url }

    /// A presenter in `mode` with sixel and kitty on offer, showing image0 (wide) once it is drawn.
    func started(in mode: PreviewMode) async throws -> BrowserPresenter {
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, graphics: terminal),
            terminalSize: size, mode: mode, modes: [.kitty, .sixel, .blocks, .ascii], colors: .full)
        presenter.view = view
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(stubImage(width: 1200, height: 450)))
        try await eventually { view.shownGraphics != nil }
        return presenter
    }

    /// Shows image1 (tall) and waits for its pixels.
    func switchToTheTallImage(_ presenter: BrowserPresenter) async throws {
        presenter.handle(.next)
        await loader.waitForRequest(url(1))
        loader.release(url(1), with: .success(stubImage(width: 400, height: 900, grey: 200)))
        try await eventually { view.shownURL == url(1) && view.shownGraphics != nil }
    }

    /// What the terminal is told for the frame of the spy's last state.
    func steps(_ placement: inout GraphicsPlacement, cleared: Bool = false) -> [GraphicsPlacement.Step] {
        let frame = BrowserScreen(state: view.last!).compose()
        return placement.update(to: frame.graphic, cleared: cleared, textOverwrites: false, screen: view.last!.terminalSize).steps
    }

    @Test func mCyclesThroughTheOfferedModesAndSaysWhichInTheStatusLine() async throws {
        let presenter = try await started(in: .sixel)
        #expect(view.last?.modes == [.kitty, .sixel, .blocks, .ascii])
        #expect(view.shownGraphics?.graphics == .sixel && view.shownGraphics?.bytes.starts(with: Array("\u{1B}P".utf8)) == true)
        let pane = BrowserLayout(size: size).previewArea
        let frame = BrowserScreen(state: view.last!).compose()
        let placed = try #require(frame.graphic)
        // Inside the pane, centred, over blank cells; scaled down to the pane's pixels with the aspect kept.
        #expect(placed.area.column >= pane.column && placed.area.column + placed.area.width <= pane.column + pane.width)
        #expect(placed.area.row >= pane.row && placed.area.row + placed.area.height <= pane.row + pane.height)
        #expect(placed.preview.layout.pixelWidth == pane.width * 10)
        let aspect = Double(placed.preview.layout.pixelWidth) / Double(placed.preview.layout.pixelHeight)
        #expect(abs(aspect - 160.0 / 60) < 0.05)
        #expect(frame.text.contains("preview · sixel"))

        for expected in [PreviewMode.blocks, .ascii, .kitty, .sixel] {
            presenter.handle(.toggleMode)
            #expect(view.last?.mode == expected)
            let status = BrowserScreen(state: view.last!).compose().text(ofRow: size.rows - 1)
            #expect(status.contains("preview mode \(expected.rawValue)"), "\(status)")
            #expect(status.contains("[\(expected.rawValue)]"), "\(status)")
            try await eventually {
                guard case .loaded(let shown)? = view.last?.phase, let preview = shown.preview else { return false }
                return preview.graphics?.graphics == expected.graphics && (expected.graphics != nil || preview.graphics == nil)
            }
        }
        // One download and one decode served every mode: each is one more render.
        #expect(loader.calls(for: url(0)).count == 1)
        var help = view.last!
        help.overlay = .help
        #expect(BrowserScreen(state: help).compose().text.contains("preview modes here: kitty → [sixel] → blocks → ascii"))
    }

    @Test func aModeTheTerminalDidNotOfferIsObeyedAndJoinsTheCycle() {
        let state = BrowserState(images: images, terminalSize: size, mode: .iterm, modes: [.sixel, .blocks, .ascii], colors: .full)
        #expect(state.modes == [.iterm, .sixel, .blocks, .ascii] && state.nextMode == .sixel)
        let textOnly = BrowserState(images: images, terminalSize: size, mode: .ascii, colors: .none)
        #expect(textOnly.modes == [.blocks, .ascii] && textOnly.nextMode == .blocks)
    }

    @Test func sixelImagesAreErasedWhenTheyGoAndDrawnAgainWhenThePanelCloses() async throws {
        let presenter = try await started(in: .sixel)
        var placement = GraphicsPlacement(terminal: terminal)
        let first = try #require(BrowserScreen(state: view.last!).compose().graphic)
        #expect(steps(&placement) == [.draw(first)])
        #expect(steps(&placement).isEmpty, "the same frame again writes nothing")

        try await switchToTheTallImage(presenter)
        let second = try #require(BrowserScreen(state: view.last!).compose().graphic)
        #expect(second.area != first.area)
        // The states between (image1 loading) have no image: the first goes at the first of them.
        var between = GraphicsPlacement(terminal: terminal)
        _ = between.update(to: first, cleared: false, textOverwrites: false, screen: size)
        let loading = try #require(view.states.last { if case .loading = $0.phase { true } else { false } })
        #expect(
            between.update(to: BrowserScreen(state: loading).compose().graphic, cleared: false, textOverwrites: false, screen: size).steps
                == [.erase(first.area)])
        #expect(steps(&placement) == [.erase(first.area), .draw(second)])

        presenter.handle(.toggleHelp)
        #expect(steps(&placement) == [.erase(second.area)], "the help panel takes the image away")
        presenter.handle(.toggleHelp)
        #expect(steps(&placement) == [.draw(second)], "and closing it brings it back")

        // Text written over the image's cells paints over it: it is drawn again.
        let again = placement.update(to: second, cleared: false, textOverwrites: true, screen: size)
        #expect(again.steps == [.draw(second)])
        #expect(placement.remove(screen: size) == again.before + eraseBytes(second.area, synchronized: true))
        #expect(placement.shown == nil)
    }

    @Test func kittyImagesAreDeletedByIdAndReplacedOnResize() async throws {
        let presenter = try await started(in: .kitty)
        var placement = GraphicsPlacement(terminal: terminal)
        let first = try #require(BrowserScreen(state: view.last!).compose().graphic)
        #expect(first.preview.imageID == GraphicsTerminal.paneImageID)
        #expect(String(decoding: first.preview.bytes.prefix(64), as: UTF8.self).contains("i=\(GraphicsTerminal.paneImageID)"))
        #expect(String(decoding: first.preview.bytes.prefix(64), as: UTF8.self).contains("C=1"), "the cursor stays put")
        #expect(steps(&placement) == [.draw(first)])
        // Text over a kitty image does not touch it.
        #expect(placement.update(to: first, cleared: false, textOverwrites: true, screen: size).isEmpty)

        presenter.resize(to: TerminalSize(columns: 120, rows: 40))
        try await eventually {
            BrowserScreen(state: view.last!).compose().graphic.map { $0.preview.layout != first.preview.layout } ?? false
        }
        let resized = try #require(BrowserScreen(state: view.last!).compose().graphic)
        #expect(steps(&placement, cleared: true) == [.delete(imageID: GraphicsTerminal.paneImageID), .draw(resized)])

        try await switchToTheTallImage(presenter)
        let tall = try #require(BrowserScreen(state: view.last!).compose().graphic)
        #expect(steps(&placement) == [.delete(imageID: GraphicsTerminal.paneImageID), .draw(tall)])

        // m: kitty's image is deleted, the sixel one drawn; m again: that one is erased, and blocks are text.
        presenter.handle(.toggleMode)
        try await eventually { view.shownGraphics?.graphics == .sixel }
        let sixel = try #require(BrowserScreen(state: view.last!).compose().graphic)
        #expect(steps(&placement) == [.delete(imageID: GraphicsTerminal.paneImageID), .draw(sixel)])
        presenter.handle(.toggleMode)
        try await eventually {
            guard case .loaded(let shown)? = view.last?.phase else { return false }
            return shown.preview != nil && shown.graphics == nil
        }
        #expect(view.last?.mode == .blocks)
        #expect(steps(&placement) == [.erase(sixel.area)])
    }

    @Test func anUpdateIsOneSynchronizedWriteWhereTheTerminalHasIt() {
        let preview = GraphicsPreview(
            layout: GraphicsLayout(pixelWidth: 40, pixelHeight: 40, columns: 4, rows: 2), bytes: Array("PIXELS".utf8), graphics: .sixel)
        let placed = PlacedGraphic(column: 3, row: 5, preview: preview)
        var synchronized = GraphicsPlacement(terminal: GraphicsTerminal(synchronizedOutput: true))
        let drawn = synchronized.update(to: placed, cleared: false, textOverwrites: false, screen: size)
        #expect(drawn.before == GraphicsPlacement.beginSynchronizedUpdate)
        #expect(drawn.after == Array("\u{1B}7\u{1B}[6;4HPIXELS\u{1B}8".utf8) + GraphicsPlacement.endSynchronizedUpdate)
        // The same image in the same place, drawn again over itself: no erasing first.
        let redrawn = synchronized.update(to: placed, cleared: true, textOverwrites: false, screen: size)
        #expect(redrawn.steps == [.draw(placed)])

        var plain = GraphicsPlacement(terminal: GraphicsTerminal())
        _ = plain.update(to: placed, cleared: false, textOverwrites: false, screen: size)
        // Erasing stops at the screen's edge: the terminal shrank under the image.
        let gone = plain.update(to: nil, cleared: false, textOverwrites: false, screen: TerminalSize(columns: 5, rows: 6))
        #expect(gone.before == Array("\u{1B}7\u{1B}[0m\u{1B}[6;4H  \u{1B}8".utf8) && gone.after.isEmpty)
    }

    /// The bytes that blank `area` (what `remove` writes for a sixel image): spaces written over it.
    func eraseBytes(_ area: Rectangle, synchronized: Bool) -> [UInt8] {
        var text = "\u{1B}7\u{1B}[0m"
        for row in area.row..<(area.row + area.height) {
            text += "\u{1B}[\(row + 1);\(area.column + 1)H" + String(repeating: " ", count: area.width)
        }
        return Array((text + "\u{1B}8").utf8) + (synchronized ? GraphicsPlacement.endSynchronizedUpdate : [])
    }
}

extension SpyBrowserView {
    /// The pixels the last state shows in the pane, if it shows an image in a pixel mode.
    var shownGraphics: GraphicsPreview? {
        guard case .loaded(let shown)? = last?.phase else { return nil }
        return shown.graphics
    }
}
