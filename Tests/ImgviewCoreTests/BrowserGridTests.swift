import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// The grid of thumbnails: `g` and Enter between it and the single image with one selection,
/// moving in two dimensions, finding, sizes, clicks, failures, and work that follows the eye.
@MainActor
@Suite("Browser grid")
struct BrowserGridTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let clock = ManualPlaybackClock()
    let images = (0..<40).map { AppImage(name: "photo\($0 + 1)", url: URL(string: "http://example.test/\($0).png")!) }

    /// 120×36: the grid's area is 118×32; 256 px cells of 10×20 px are 26×13 cells with a name
    /// row, so 4 across and 2 rows: 8 a screen.
    func makePresenter(size: TerminalSize = TerminalSize(columns: 120, rows: 36)) -> BrowserPresenter {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(
                pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0, clock: clock),
            terminalSize: size, mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        return presenter
    }

    func url(_ index: Int) -> URL { images[index].url }
    var selected: Int? { view.last?.selectedIndex }

    func cell(_ index: Int) -> GridCell? { view.last?.grid?.cells[images[index].urlString] }

    func screenText(_ state: BrowserState? = nil) -> String {
        BrowserScreen(state: state ?? view.last!).compose().text
    }

    @Test func layoutMakesCellsAboutSquareInPixels() {
        let layout = GridLayout(area: Rectangle(column: 1, row: 2, width: 118, height: 32), thumbnailPixels: 256, cell: .fallback)
        #expect(layout.cellWidth == 26 && layout.imageRows == 13)
        #expect(layout.columns == 4 && layout.visibleRows == 2)
        // 4 cells and 3 gaps are 107 columns, centred in 118: from column 1 + 5.
        #expect(layout.imageBox(of: 5, firstRow: 0) == Rectangle(column: 6 + 27, row: 2 + 14, width: 26, height: 13))
        #expect(layout.imageBox(of: 8, firstRow: 0) == nil, "the third row is off screen")
        #expect(layout.index(atColumn: 6 + 27 + 3, row: 2 + 14 + 13, firstRow: 0, count: 40) == 5, "a click on a name")
        #expect(layout.index(atColumn: 6 + 26, row: 3, firstRow: 0, count: 40) == nil, "the gap between cells")
        #expect(layout.firstRow(showing: 39, from: 0, count: 40) == 8)
        #expect(layout.firstRow(showing: 2, from: 8, count: 40) == 0)
        let kitty = GridLayout(
            area: Rectangle(column: 1, row: 2, width: 118, height: 32), thumbnailPixels: 128, cell: CellPixelSize(width: 8, height: 16))
        #expect(kitty.cellWidth == 16 && kitty.imageRows == 8)
    }

    @Test func gTogglesTheGridKeepingTheSelectionAndEnterOpensTheSelectedImage() async throws {
        let presenter = makePresenter()
        presenter.handle(key: .right)
        presenter.handle(key: .character("g"))
        #expect(view.last?.grid != nil)
        #expect(selected == 1)
        #expect(!presenter.isWorking(on: url(1)) || presenter.gridTasks[url(1)] != nil, "the single view's task is given up")
        // Every visible cell is asked for at high priority; the next screen once this one is whole.
        for index in 0..<8 { await loader.waitForRequest(url(index)) }
        #expect(presenter.gridTasks[url(3)]?.priority == .high)
        #expect(presenter.gridTasks[url(12)] == nil, "the next screen waits for this one")
        loader.release(url(1), with: .success(stubImage(width: 64, height: 48)))
        try await eventually {
            if case .loaded? = cell(1) { true } else { false }
        }
        guard case .loaded(let preview)? = cell(1) else { return }
        #expect(preview.grid.columns <= 26 && preview.grid.rows <= 13)
        #expect(cell(0) == .loading)
        #expect(presenter.gridTasks[url(12)] == nil)
        for index in [0, 2, 3, 4, 5, 6, 7] { loader.release(url(index), with: .success(stubImage(width: 64, height: 48))) }
        for index in 8..<16 { await loader.waitForRequest(url(index)) }
        #expect(presenter.gridTasks[url(12)]?.priority == .low, "the screen is whole: the next one at low priority")
        #expect(presenter.gridTasks[url(16)] == nil, "nothing past the next screen")
        presenter.handle(key: .down)
        #expect(selected == 5)
        presenter.handle(key: .enter)
        #expect(view.last?.grid == nil)
        #expect(selected == 5, "Enter opens the selected image")
        #expect(presenter.gridTasks.isEmpty, "the grid's work stops with it")
        presenter.handle(key: .character("g"))
        #expect(view.last?.grid != nil && selected == 5, "g comes back with it selected")
    }

    @Test func arrowsAndHjklMoveInTwoDimensionsWithoutWrapping() {
        let presenter = makePresenter()
        presenter.handle(key: .character("g"))
        presenter.handle(key: .character("l"))
        presenter.handle(key: .right)
        #expect(selected == 2)
        presenter.handle(key: .character("j"))
        #expect(selected == 6)
        presenter.handle(key: .down)
        #expect(selected == 10)
        #expect(view.last?.grid?.firstRow == 1, "scrolled by one row to show the selection")
        presenter.handle(key: .character("k"))
        presenter.handle(key: .up)
        #expect(selected == 2)
        presenter.handle(key: .up)
        #expect(selected == 2, "nothing above the first row")
        presenter.handle(key: .character("h"))
        presenter.handle(key: .left)
        presenter.handle(key: .left)
        #expect(selected == 0)
        presenter.handle(key: .pageDown)
        #expect(selected == 8, "a page is a screen of cells")
        #expect(view.last?.grid?.firstRow == 1, "scrolled as little as shows it")
        presenter.handle(key: .end)
        #expect(selected == 39)
        #expect(view.last?.grid?.firstRow == 8)
        presenter.handle(key: .down)
        #expect(selected == 39)
        presenter.handle(key: .pageUp)
        #expect(selected == 31)
        presenter.handle(key: .home)
        #expect(selected == 0 && view.last?.grid?.firstRow == 0)
    }

    @Test func cellsScrolledAwayAreCancelledAndTheNewScreenComesFirst() async throws {
        let presenter = makePresenter()
        presenter.handle(key: .character("g"))
        for index in 0..<8 { await loader.waitForRequest(url(index)) }
        for index in 0..<8 { loader.release(url(index), with: .success(stubImage(width: 64, height: 48))) }
        await loader.waitForRequest(url(8))
        await loader.waitForRequest(url(15))
        presenter.handle(key: .end)
        for index in 32..<40 { await loader.waitForRequest(url(index)) }
        try await eventually { loader.cancelledURLs.contains(url(8)) && loader.cancelledURLs.contains(url(15)) }
        #expect(Set(presenter.gridTasks.keys) == Set((32..<40).map(url)), "only the last screen is wanted")
        #expect(presenter.gridTasks.values.allSatisfy { $0.priority == .high })
    }

    @Test func aFailedCellIsMarkedAndItsReasonShowsWhenSelected() async throws {
        let presenter = makePresenter()
        presenter.handle(key: .character("g"))
        await loader.waitForRequest(url(2))
        loader.release(url(2), with: .success(Data("not an image at all".utf8)))
        try await eventually {
            if case .failed? = cell(2) { true } else { false }
        }
        #expect(screenText().contains("✗"))
        #expect(BrowserScreen.statusShowsHints(view.last!), "the reason shows only when the cell is selected")
        presenter.handle(key: .right)
        presenter.handle(key: .right)
        #expect(!BrowserScreen.statusShowsHints(view.last!))
        let status = BrowserScreen(state: view.last!).compose().text(ofRow: 35)
        guard case .failed(let reason)? = cell(2) else { return }
        #expect(status.contains(String(reason.prefix(20))))
        // Scrolled away and back: remembered, not asked for again.
        let asked = loader.calls(for: url(2)).count
        presenter.handle(key: .end)
        presenter.handle(key: .home)
        #expect(loader.calls(for: url(2)).count == asked)
        if case .failed? = cell(2) {} else { Issue.record("the failure is shown again") }
    }

    @Test func namesAreCutByDisplayWidthAndTheSelectedOneIsReversed() {
        let wide = [AppImage(name: "日本語の写真をたくさん撮りましたよ.jpg", url: URL(string: "http://example.test/w.png")!)]
        let state = {
            var state = BrowserState(
                images: wide + images, terminalSize: TerminalSize(columns: 120, rows: 36), mode: .blocks, colors: .twoFiftySix)
            state.grid = GridViewport()
            state.marks = [images[0].urlString]
            return state
        }()
        let frame = BrowserScreen(state: state).compose()
        let layout = state.gridLayout!
        let labelRow = layout.imageBox(of: 0, firstRow: 0)!.row + layout.imageRows
        let label = frame.text(ofRow: labelRow)
        #expect(label.contains("…"))
        #expect(label.contains("✓ photo1"), "a marked image's name has a check")
        let box = layout.imageBox(of: 0, firstRow: 0)!
        #expect(frame[box.column, labelRow].style.contains(.reverse))
        // The cut name fits its cell: the second cell's name starts after the gap.
        let width = (box.column..<(box.column + box.width)).reduce(0) {
            $0 + (frame[$1, labelRow].isContinuation ? 0 : DisplayWidth.of(frame[$1, labelRow].character))
        }
        #expect(width <= box.width)
        #expect(frame.text.contains("grid · blocks · 256 px · 1–8 of 41"))
    }

    @Test func plusAndMinusChangeHowManyCellsFit() async {
        let presenter = makePresenter()
        presenter.handle(key: .character("g"))
        let before = presenter.state.gridLayout!.cellsPerScreen
        presenter.handle(key: .character("-"))
        #expect(view.last?.grid?.thumbnailPixels == 192)
        let after = presenter.state.gridLayout!.cellsPerScreen
        #expect(after > before)
        await loader.waitForRequest(url(after - 1))
        presenter.handle(key: .character("+"))
        presenter.handle(key: .character("+"))
        #expect(view.last?.grid?.thumbnailPixels == 384)
        #expect(presenter.state.gridLayout!.cellsPerScreen < before)
        presenter.handle(key: .character("+"))
        presenter.handle(key: .character("+"))
        #expect(view.last?.notice?.text == "thumbnails are as large as they go")
        presenter.handle(key: .character("g"))
        presenter.handle(key: .character("g"))
        #expect(view.last?.grid?.thumbnailPixels == 512, "the size is kept for the next visit")
    }

    @Test func slashFindsInTheGridAndTheViewFollows() {
        let presenter = makePresenter()
        presenter.handle(key: .character("g"))
        presenter.handle(key: .character("/"))
        for character in "photo33" { presenter.handle(key: .character(character)) }
        #expect(selected == 32)
        #expect(view.last?.grid?.firstRow == 7)
        presenter.handle(key: .enter)
        #expect(view.last?.prompt == nil && view.last?.grid != nil, "Enter ends the search, still in the grid")
        presenter.handle(key: .enter)
        #expect(view.last?.grid == nil && selected == 32)
    }

    @Test func aClickSelectsADoubleClickOpensAndTheWheelMovesByRows() {
        let presenter = makePresenter()
        presenter.handle(key: .character("g"))
        let layout = presenter.state.gridLayout!
        let box = layout.imageBox(of: 6, firstRow: 0)!
        presenter.handle(mouse: MouseEvent(.press(button: 0), column: box.column + 2, row: box.row + 2))
        #expect(selected == 6 && view.last?.grid != nil)
        clock.advance(by: .milliseconds(600))
        presenter.handle(mouse: MouseEvent(.press(button: 0), column: box.column + 2, row: box.row + 2))
        #expect(view.last?.grid != nil, "two clicks far apart are two single clicks")
        clock.advance(by: .milliseconds(150))
        presenter.handle(mouse: MouseEvent(.press(button: 0), column: box.column + 2, row: box.row + 2))
        #expect(view.last?.grid == nil && selected == 6, "a double click opens the image")
        presenter.handle(key: .character("g"))
        presenter.handle(mouse: MouseEvent(.wheelDown, column: 10, row: 10))
        #expect(selected == 10)
        presenter.handle(mouse: MouseEvent(.wheelUp, column: 10, row: 10))
        #expect(selected == 6)
    }

    @Test func aFolderStillBeingListedFillsTheGridAsItArrives() async {
        let (stream, continuation) = AsyncStream<[AppImage]>.makeStream()
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: Array(images.prefix(2)), origin: .builtIn),
            configuration: .init(pipeline: pipeline, moreTabs: stream, saveFolder: FileManager.default.temporaryDirectory),
            terminalSize: TerminalSize(columns: 120, rows: 36), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        presenter.handle(key: .character("g"))
        await loader.waitForRequest(url(1))
        continuation.yield(Array(images[2..<10]))
        await loader.waitForRequest(url(7))
        #expect(presenter.gridTasks[url(7)]?.priority == .high)
        continuation.finish()
    }

    @Test func aClickOnTheGridHintOpensTheGridAndOneOnTheSingleHintGoesBack() throws {
        let presenter = makePresenter()
        presenter.handle(key: .right)
        /// A press on the first column of the status line's `hint`, if the line shows it.
        func clickHint(_ hint: String) throws {
            let state = try #require(view.last)
            let row = state.terminalSize.rows - 1
            let line = BrowserScreen(state: state).compose().text(ofRow: row)
            let range = try #require(line.range(of: hint), "\(hint) on the status line: \(line)")
            let column = line.distance(from: line.startIndex, to: range.lowerBound)
            presenter.handle(mouse: MouseEvent(.press(button: 0), column: column, row: row))
        }
        #expect(view.last?.grid == nil)
        try clickHint("g grid")
        #expect(view.last?.grid != nil, "the click opens the grid")
        #expect(selected == 1, "with the selection kept")
        try clickHint("g single")
        #expect(view.last?.grid == nil, "and one on the grid's hint goes back to the single view")
        #expect(selected == 1)
    }

    @Test func aCellOfALargePhotoAsksTheDecoderForItsThumbnailsSizeOnly() async throws {
        let decoder = SizeRecordingDecoder()
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: decoder, scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0, clock: clock),
            terminalSize: TerminalSize(columns: 120, rows: 36), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        presenter.handle(key: .character("g"))
        // Eight 3840×2400 JPEGs, each its own grey so the decoder tells them apart.
        for index in 0..<8 {
            await loader.waitForRequest(url(index))
            loader.release(url(index), with: .success(stubImage(width: 3840, height: 2400, grey: UInt8(index))))
        }
        try await eventually {
            (0..<8).allSatisfy { if case .loaded? = cell($0) { true } else { false } }
        }
        let asked = decoder.requests
        for index in 0..<8 {
            // A `large` thumbnail is 256×160: asked for that (less a pixel or two a writer may round
            // away), which libjpeg serves at its smallest scale, 1/8 (480×300), not at full size.
            let minimum = try #require(asked[UInt8(index)] ?? nil, "cell \(index) was decoded with a size")
            #expect((252...256).contains(minimum.width) && (156...160).contains(minimum.height), "cell \(index): \(minimum)")
            #expect(DecodePolicyTests.libjpegEighths(width: 3840, height: 2400, covering: minimum) == 1)
        }
        withExtendedLifetime(presenter) {}
    }
}

/// Reads stub images as JPEGs and records the size each decode asks for, by the image's grey
/// level; gives what libjpeg would at that request (its smallest scale covering it).
final class SizeRecordingDecoder: ImageDecoding, Sendable {
    private let asked = Locked<[UInt8: (width: Int, height: Int)?]>([:])

    var requests: [UInt8: (width: Int, height: Int)?] { asked.withLock { $0 } }

    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        var header = try StubDecoder().inspect(bytes, probe: probe)
        header.format = .jpeg
        return header
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let grey = UInt8(String(decoding: bytes.dropFirst(8), as: UTF8.self).split(separator: ",").last ?? "") ?? 0
        asked.withLock { $0[grey] = request.minimumSize }
        let eighths =
            request.minimumSize.map {
                DecodePolicyTests.libjpegEighths(width: header.storedWidth, height: header.storedHeight, covering: $0)
            } ?? 8
        let width = (header.storedWidth * eighths + 7) / 8
        let height = (header.storedHeight * eighths + 7) / 8
        return DecodedImage(header: header, pixels: PixelBuffer(width: width, height: height, filledWith: (grey, grey, grey, 255)))
    }
}
