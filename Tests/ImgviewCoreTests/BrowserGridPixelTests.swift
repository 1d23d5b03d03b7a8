import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewTerminalDetection

/// The grid in a pixel mode, with the spy view: each visible cell is its own image (kitty: its own
/// id), and `GraphicsPlacement`, fed the frames the spy's states compose to, takes away what a
/// scroll, a mode change or a panel removes and draws only what is new or moved.
@MainActor
@Suite("Browser grid in pixels")
struct BrowserGridPixelTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let images = (0..<40).map { AppImage(name: "photo\($0 + 1)", url: URL(string: "http://example.test/\($0).png")!) }
    let terminal = GraphicsTerminal(cell: CellPixelSize(width: 10, height: 20), synchronizedOutput: true)
    /// 120×36: 256 px cells of 10×20 px are 26×13 cells, 4 across and 2 rows: 8 a screen.
    let size = TerminalSize(columns: 120, rows: 36)

    func url(_ index: Int) -> URL { images[index].url }

    /// Rows of wide images and rows of tall ones, so a cell scrolled a row shows another shape.
    func image(_ index: Int) -> Data {
        (index / 4) % 2 == 0 ? stubImage(width: 640, height: 400, grey: 60) : stubImage(width: 300, height: 480, grey: 200)
    }

    /// A presenter in `mode` showing the grid, its first screen's images released.
    func startedGrid(in mode: PreviewMode) async throws -> BrowserPresenter {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(
                pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0, graphics: terminal),
            terminalSize: size, mode: mode, modes: [.kitty, .sixel, .blocks, .ascii], colors: .full)
        presenter.view = view
        presenter.start()
        // The single view shows the first image; the grid renders its cell from the same bytes.
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(image(0)))
        try await eventually { view.shownGraphics != nil }
        presenter.handle(key: .character("g"))
        try await release(1..<8)
        return presenter
    }

    func release(_ indices: Range<Int>) async throws {
        for index in indices {
            await loader.waitForRequest(url(index))
            loader.release(url(index), with: .success(image(index)))
        }
    }

    var frame: ScreenFrame { BrowserScreen(state: view.last!).compose() }

    /// Waits until the last state's frame places `count` images, all in `graphics`.
    func waitForCells(_ count: Int, _ graphics: GraphicsProtocol) async throws {
        try await eventually {
            let placed = frame.graphics
            return placed.count == count && placed.allSatisfy { $0.preview.graphics == graphics }
        }
    }

    func steps(_ placement: inout GraphicsPlacement, cleared: Bool = false, screen: TerminalSize? = nil) -> [GraphicsPlacement.Step] {
        update(&placement, cleared: cleared, screen: screen).steps
    }

    /// What the terminal is written around the last state's frame: as the full-screen terminal
    /// asks for it (a resize draws the screen from scratch: `cleared`).
    func update(_ placement: inout GraphicsPlacement, cleared: Bool = false, screen: TerminalSize? = nil) -> GraphicsPlacement.Update {
        placement.update(to: frame.graphics, cleared: cleared, textOverwrites: { _ in false }, screen: screen ?? size)
    }

    /// How many times `sequence` occurs in `bytes`.
    func occurrences(of sequence: [UInt8], in bytes: [UInt8]) -> Int {
        guard !sequence.isEmpty, bytes.count >= sequence.count else { return 0 }
        return (0...(bytes.count - sequence.count)).filter { bytes[$0..<($0 + sequence.count)].elementsEqual(sequence) }.count
    }

    /// Each placed image inside `screen` and inside its cell's image box, centred in it across and down.
    func expectCentredInTheirBoxes(
        _ placed: [PlacedGraphic], screen: TerminalSize, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let state = try #require(view.last)
        let layout = try #require(state.gridLayout)
        let visible = layout.visible(firstRow: state.grid?.firstRow ?? 0, count: images.count)
        #expect(placed.count == visible.count, sourceLocation: sourceLocation)
        for (index, graphic) in zip(visible, placed) {
            let box = try #require(layout.imageBox(of: index, firstRow: state.grid?.firstRow ?? 0))
            let area = graphic.area
            #expect(area.column >= 0 && area.row >= 0, sourceLocation: sourceLocation)
            #expect(area.column + area.width <= screen.columns && area.row + area.height <= screen.rows, sourceLocation: sourceLocation)
            #expect(
                area.column == box.column + (box.width - area.width) / 2, "cell \(index): \(area) in \(box)", sourceLocation: sourceLocation
            )
            #expect(
                area.row == box.row + (box.height - area.height) / 2, "cell \(index): \(area) in \(box)", sourceLocation: sourceLocation)
        }
    }

    func deleted(_ steps: [GraphicsPlacement.Step]) -> Set<UInt32> {
        Set(
            steps.compactMap { step -> UInt32? in
                guard case .delete(let id) = step else { return nil }
                return id
            })
    }

    func drawn(_ steps: [GraphicsPlacement.Step]) -> [PlacedGraphic] {
        steps.compactMap { step -> PlacedGraphic? in
            guard case .draw(let placed) = step else { return nil }
            return placed
        }
    }

    func erased(_ steps: [GraphicsPlacement.Step]) -> [Rectangle] {
        steps.compactMap { step -> Rectangle? in
            guard case .erase(let area) = step else { return nil }
            return area
        }
    }

    @Test func kittyCellsAreImagesOfTheirOwnIdAndAScrollDeletesWhatMovedOrLeft() async throws {
        let presenter = try await startedGrid(in: .kitty)
        try await waitForCells(8, .kitty)
        let layout = try #require(view.last?.gridLayout)
        let first = frame.graphics
        // Each image inside its cell's box, the cursor left where it was, an id of its own.
        for (index, placed) in first.enumerated() {
            let box = try #require(layout.imageBox(of: index, firstRow: 0))
            #expect(placed.area.column >= box.column && placed.area.column + placed.area.width <= box.column + box.width)
            #expect(placed.area.row >= box.row && placed.area.row + placed.area.height <= box.row + box.height)
            let keys = String(decoding: placed.preview.bytes.prefix(64), as: UTF8.self)
            #expect(keys.contains("i=\(placed.preview.imageID),") && keys.contains("C=1"), "\(keys)")
        }
        let ids = first.map(\.preview.imageID)
        #expect(Set(ids).count == 8 && !ids.contains(GraphicsTerminal.paneImageID))
        var placement = GraphicsPlacement(terminal: terminal)
        #expect(steps(&placement) == first.map { .draw($0) })
        #expect(steps(&placement).isEmpty, "the same frame again writes nothing")

        // Selecting in the first screen changes names, not images.
        presenter.handle(key: .right)
        #expect(steps(&placement).isEmpty)

        // Down twice: the grid scrolls a row. The top row's images leave, the second row's move up:
        // all eight are deleted by their ids, the eight on screen now are drawn.
        presenter.handle(key: .down)
        presenter.handle(key: .down)
        #expect(view.last?.grid?.firstRow == 1)
        try await release(8..<12)
        try await waitForCells(8, .kitty)
        let scrolled = steps(&placement)
        #expect(deleted(scrolled) == Set(ids))
        #expect(drawn(scrolled) == frame.graphics)
        #expect(frame.graphics.prefix(4).map(\.preview.imageID) == Array(ids[4...]), "the images that moved keep their ids")
        #expect(Set(frame.graphics.map(\.preview.imageID)).isDisjoint(with: ids[..<4]), "an image that left is not drawn")
        // Back up: the first row's images come from memory with the same ids.
        presenter.handle(key: .up)
        presenter.handle(key: .up)
        presenter.handle(key: .up)
        try await waitForCells(8, .kitty)
        #expect(frame.graphics.map(\.preview.imageID) == ids)
        _ = steps(&placement)

        // m: kitty's images are deleted, sixel ones drawn in their places.
        presenter.handle(.toggleMode)
        try await waitForCells(8, .sixel)
        let toSixel = steps(&placement)
        #expect(deleted(toSixel) == Set(ids) && drawn(toSixel).count == 8 && erased(toSixel).isEmpty)
        // Quitting takes every one away.
        #expect(!placement.remove(screen: size).isEmpty)
        #expect(placement.placed.isEmpty)
    }

    @Test func sixelCellsAreErasedWhenTheirCellChangesAndAPanelTakesThemAll() async throws {
        let presenter = try await startedGrid(in: .sixel)
        try await waitForCells(8, .sixel)
        let first = frame.graphics
        var placement = GraphicsPlacement(terminal: terminal)
        #expect(steps(&placement) == first.map { .draw($0) })

        // A row down: every slot shows an image of the other shape, so each old one is erased.
        presenter.handle(key: .down)
        presenter.handle(key: .down)
        try await release(8..<12)
        try await waitForCells(8, .sixel)
        let scrolled = steps(&placement)
        #expect(erased(scrolled).count == 8 && first.allSatisfy { erased(scrolled).contains($0.area) })
        #expect(drawn(scrolled) == frame.graphics)
        // Every erasing comes before every drawing.
        let firstDraw = try #require(scrolled.firstIndex { if case .draw = $0 { true } else { false } })
        #expect(scrolled[firstDraw...].allSatisfy { if case .draw = $0 { true } else { false } })

        let shown = frame.graphics
        presenter.handle(.toggleHelp)
        #expect(frame.graphics.isEmpty)
        #expect(erased(steps(&placement)).count == 8, "the help panel takes the images away")
        presenter.handle(.toggleHelp)
        #expect(steps(&placement) == shown.map { .draw($0) }, "and closing it brings them back")

        // m to blocks: the cells are text, and no image is left.
        presenter.handle(.toggleMode)
        #expect(view.last?.mode == .blocks)
        try await eventually {
            guard let cells = view.last?.grid?.cells, cells.count == 8 else { return false }
            return cells.values.allSatisfy { if case .loaded(let preview) = $0 { preview.graphics == nil } else { false } }
        }
        #expect(frame.graphics.isEmpty)
        #expect(erased(steps(&placement)).count == 8)
        #expect(placement.placed.isEmpty)
    }

    @Test func aResizeDeletesEveryKittyCellAndDrawsTheNewLayoutInsideTheNewScreen() async throws {
        let presenter = try await startedGrid(in: .kitty)
        try await waitForCells(8, .kitty)
        let before = try #require(view.last?.gridLayout)
        #expect(before.columns == 4)
        var placement = GraphicsPlacement(terminal: terminal)
        let ids = Set(
            steps(&placement).compactMap { step -> UInt32? in
                guard case .draw(let placed) = step else { return nil }
                return placed.preview.imageID
            })
        #expect(ids.count == 8)

        // Wider: 5 across; the two new cells come from the loader, the others from memory.
        let wider = TerminalSize(columns: 160, rows: 36)
        presenter.resize(to: wider)
        try await release(8..<10)
        try await waitForCells(10, .kitty)
        let after = try #require(view.last?.gridLayout)
        #expect(after.columns == 5 && after.columns != before.columns)
        // The terminal draws a resized screen from scratch: every old id is deleted, whether its
        // image moved or not, and every cell of the new layout drawn.
        let resized = steps(&placement, cleared: true, screen: wider)
        #expect(deleted(resized) == ids)
        #expect(drawn(resized) == frame.graphics && drawn(resized).count == 10)
        #expect(resized.prefix(8).allSatisfy { if case .delete = $0 { true } else { false } }, "the old go before the new come")
        try expectCentredInTheirBoxes(drawn(resized), screen: wider)
        #expect(placement.placed == frame.graphics)
    }

    @Test func aResizeErasesEverySixelCellAndKeepsTheSelectionOnTheNewScreen() async throws {
        let presenter = try await startedGrid(in: .sixel)
        try await waitForCells(8, .sixel)
        // The second screen's first row seen once, so the pipeline holds its renders.
        presenter.handle(key: .down)
        presenter.handle(key: .down)
        try await release(8..<12)
        try await waitForCells(8, .sixel)
        presenter.handle(key: .up)
        presenter.handle(key: .up)
        // The last cell of the first screen selected: 4 across, it is on the second row.
        for _ in 0..<3 { presenter.handle(key: .right) }
        presenter.handle(key: .down)
        #expect(view.last?.selectedIndex == 7 && view.last?.grid?.firstRow == 0)
        try await waitForCells(8, .sixel)
        var placement = GraphicsPlacement(terminal: terminal)
        let first = frame.graphics
        #expect(steps(&placement) == first.map { .draw($0) })

        // Narrower: 3 across, so the selected cell is on the third row: the grid scrolls a row to
        // keep it in sight, and every cell it shows is one the pipeline has already rendered.
        let narrower = TerminalSize(columns: 100, rows: 36)
        presenter.resize(to: narrower)
        let layout = try #require(view.last?.gridLayout)
        #expect(layout.columns == 3)
        #expect(view.last?.grid?.firstRow == 1, "the selection stays on screen through a resize")
        try await waitForCells(6, .sixel)
        let resized = steps(&placement, cleared: true, screen: narrower)
        // Every old cell is written over with blanks (none is where a new one of its size is),
        // before the new ones are drawn.
        #expect(erased(resized).count == 8 && first.allSatisfy { erased(resized).contains($0.area) })
        #expect(drawn(resized) == frame.graphics)
        let firstDraw = try #require(resized.firstIndex { if case .draw = $0 { true } else { false } })
        #expect(resized[firstDraw...].allSatisfy { if case .draw = $0 { true } else { false } })
        try expectCentredInTheirBoxes(drawn(resized), screen: narrower)
    }

    @Test func aScrollAndAModeChangeAreEachOneSynchronizedUpdate() async throws {
        let presenter = try await startedGrid(in: .kitty)
        try await waitForCells(8, .kitty)
        var placement = GraphicsPlacement(terminal: terminal)
        _ = update(&placement)
        let begin = GraphicsPlacement.beginSynchronizedUpdate
        let end = GraphicsPlacement.endSynchronizedUpdate

        func expectOneSynchronizedUpdate(_ update: GraphicsPlacement.Update, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(update.before.starts(with: begin), sourceLocation: sourceLocation)
            #expect(update.after.suffix(end.count).elementsEqual(end), sourceLocation: sourceLocation)
            let whole = update.before + update.after
            #expect(occurrences(of: begin, in: whole) == 1 && occurrences(of: end, in: whole) == 1, sourceLocation: sourceLocation)
        }

        // A row down: the eight old images go and eight are drawn, all inside one synchronized update.
        presenter.handle(key: .down)
        presenter.handle(key: .down)
        try await release(8..<12)
        try await waitForCells(8, .kitty)
        let scrolled = update(&placement)
        #expect(deleted(scrolled.steps).count == 8 && drawn(scrolled.steps).count == 8)
        expectOneSynchronizedUpdate(scrolled)
        // The deletions are written before the frame's text, the new images after it.
        for id in deleted(scrolled.steps) {
            #expect(occurrences(of: KittyGraphicsEncoder(passthrough: terminal.passthrough).delete(id: id), in: scrolled.before) == 1)
        }
        for placed in drawn(scrolled.steps) { #expect(occurrences(of: placed.preview.bytes, in: scrolled.after) == 1) }

        // m: kitty's images deleted and sixel ones drawn, in one update too.
        presenter.handle(.toggleMode)
        try await waitForCells(8, .sixel)
        let toSixel = update(&placement)
        #expect(deleted(toSixel.steps).count == 8 && drawn(toSixel.steps).count == 8)
        expectOneSynchronizedUpdate(toSixel)

        // On through the text modes and back to kitty, whose cells the pipeline has rendered: they
        // show at once, their images drawn again in one update.
        presenter.handle(.toggleMode)
        presenter.handle(.toggleMode)
        #expect(view.last?.mode == .ascii)
        try await eventually {
            guard let cells = view.last?.grid?.cells, cells.count == 8 else { return false }
            return cells.values.allSatisfy { if case .loaded(let preview) = $0 { preview.graphics == nil } else { false } }
        }
        let toText = update(&placement)
        #expect(erased(toText.steps).count == 8 && drawn(toText.steps).isEmpty)
        expectOneSynchronizedUpdate(toText)
        presenter.handle(.toggleMode)
        #expect(view.last?.mode == .kitty)
        #expect(frame.graphics.count == 8 && frame.graphics.allSatisfy { $0.preview.graphics == .kitty }, "shown at once")
        let toKitty = update(&placement)
        #expect(drawn(toKitty.steps).count == 8)
        expectOneSynchronizedUpdate(toKitty)

        // A terminal without synchronized output gets the same steps with neither sequence.
        var plain = GraphicsPlacement(terminal: GraphicsTerminal(cell: terminal.cell))
        let unsynchronized = update(&plain)
        #expect(drawn(unsynchronized.steps).count == 8)
        #expect(occurrences(of: begin, in: unsynchronized.before + unsynchronized.after) == 0)
        #expect(occurrences(of: end, in: unsynchronized.before + unsynchronized.after) == 0)
    }

    @Test func aThumbnailNarrowerOrShorterThanItsCellIsCentredInItsBox() async throws {
        // The first row's images are wide (shorter than the box), the second's tall (narrower).
        let presenter = try await startedGrid(in: .sixel)
        try await waitForCells(8, .sixel)
        let placed = frame.graphics
        let layout = try #require(view.last?.gridLayout)
        #expect(placed.prefix(4).allSatisfy { $0.area.height < layout.imageRows && $0.area.width == layout.cellWidth })
        #expect(placed.suffix(4).allSatisfy { $0.area.width < layout.cellWidth && $0.area.height == layout.imageRows })
        try expectCentredInTheirBoxes(placed, screen: size)
        withExtendedLifetime(presenter) {}
    }

    @Test func anImageThatStaysCostsNothingAndTextOverOneRedrawsOnlyIt() {
        func placed(_ column: Int, _ name: String, _ graphics: GraphicsProtocol, id: UInt32 = 1) -> PlacedGraphic {
            PlacedGraphic(
                column: column, row: 2,
                preview: GraphicsPreview(
                    layout: GraphicsLayout(pixelWidth: 40, pixelHeight: 40, columns: 4, rows: 2), bytes: Array(name.utf8),
                    graphics: graphics, imageID: id))
        }
        let (a, b) = (placed(1, "A", .sixel), placed(10, "B", .sixel))
        var placement = GraphicsPlacement(terminal: GraphicsTerminal())
        #expect(placement.update(to: [a, b], cleared: false, textOverwrites: { _ in false }, screen: size).steps == [.draw(a), .draw(b)])
        #expect(placement.update(to: [a, b], cleared: false, textOverwrites: { _ in false }, screen: size).isEmpty)
        #expect(placement.update(to: [a, b], cleared: false, textOverwrites: { $0 == b.area }, screen: size).steps == [.draw(b)])
        // Another picture of the same size over b's cells paints over it; a goes.
        let c = placed(10, "C", .sixel)
        #expect(
            placement.update(to: [c], cleared: false, textOverwrites: { _ in false }, screen: size).steps == [.erase(a.area), .draw(c)])

        let (k1, k2) = (placed(1, "K1", .kitty, id: 7), placed(10, "K2", .kitty, id: 8))
        var kitty = GraphicsPlacement(terminal: GraphicsTerminal())
        _ = kitty.update(to: [k1, k2], cleared: false, textOverwrites: { _ in false }, screen: size)
        // Text over a kitty image does not touch it; k2 moved: deleted by its id and drawn anew.
        var moved = k2
        moved.row = 6
        #expect(
            kitty.update(to: [k1, moved], cleared: false, textOverwrites: { _ in true }, screen: size).steps
                == [.delete(imageID: 8), .draw(moved)])
        #expect(
            kitty.update(to: [k1, moved], cleared: true, textOverwrites: { _ in false }, screen: size).steps
                == [.delete(imageID: 7), .delete(imageID: 8), .draw(k1), .draw(moved)], "a cleared screen draws all again")
    }

    /// When the text library moves lines (ncurses scrolls a region when a line's new text is
    /// another line's old text), the pixels in them move too: every image goes first, even one
    /// that stays the same or that a new image of its size would paint over, and all are drawn
    /// after the text.
    @Test func whenLinesMoveEveryImageIsTakenAwayAndDrawnAgain() {
        func placed(_ column: Int, _ name: String, _ graphics: GraphicsProtocol, id: UInt32 = 1) -> PlacedGraphic {
            PlacedGraphic(
                column: column, row: 2,
                preview: GraphicsPreview(
                    layout: GraphicsLayout(pixelWidth: 40, pixelHeight: 40, columns: 4, rows: 2), bytes: Array(name.utf8),
                    graphics: graphics, imageID: id))
        }
        for graphics in [GraphicsProtocol.iterm, .sixel] {
            let (a, b, c) = (placed(1, "A", graphics), placed(10, "B", graphics), placed(10, "C", graphics))
            var placement = GraphicsPlacement(terminal: GraphicsTerminal())
            _ = placement.update(to: [a, b], cleared: false, textOverwrites: { _ in false }, screen: size)
            // a stays where it was, the same picture; c has b's place and size.
            #expect(
                placement.update(to: [a, c], cleared: false, linesMove: true, textOverwrites: { _ in false }, screen: size).steps
                    == [.erase(a.area), .erase(b.area), .draw(a), .draw(c)])
        }
        let (k1, k2) = (placed(1, "K1", .kitty, id: 7), placed(10, "K2", .kitty, id: 8))
        var kitty = GraphicsPlacement(terminal: GraphicsTerminal())
        _ = kitty.update(to: [k1, k2], cleared: false, textOverwrites: { _ in false }, screen: size)
        #expect(
            kitty.update(to: [k1, k2], cleared: false, linesMove: true, textOverwrites: { _ in false }, screen: size).steps
                == [.delete(imageID: 7), .delete(imageID: 8), .draw(k1), .draw(k2)])
    }
}
