import Foundation
import ImgviewSupport
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline

/// The presenter with a spy view and a loader held by hand: every state, and the rule that
/// whatever the user selected last is what the screen shows, however responses race.
@MainActor
@Suite("BrowserPresenter")
struct BrowserPresenterTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let images = (0..<6).map { AppImage(name: "image\($0)", url: URL(string: "http://example.test/\($0).png")!) }
    let pipeline: ImagePipeline

    init() {
        pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
    }

    func url(_ index: Int) -> URL { images[index].url }

    func makePresenter(
        catalog: Catalog? = nil, paging: (any CatalogPaging)? = nil, saveFolder: URL = FileManager.default.temporaryDirectory,
        size: TerminalSize = TerminalSize(columns: 100, rows: 30), pipeline: ImagePipeline? = nil
    ) -> BrowserPresenter {
        let presenter = BrowserPresenter(
            catalog: catalog ?? Catalog(images: images, origin: .builtIn),
            configuration: .init(pipeline: pipeline ?? self.pipeline, catalogPaging: paging, saveFolder: saveFolder),
            terminalSize: size, mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        return presenter
    }

    /// Starts the presenter and shows the first image.
    func started() async throws -> BrowserPresenter {
        let presenter = makePresenter()
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(stubImage()))
        try await eventually { view.isShowingPreview }
        return presenter
    }

    /// Whether the spy was ever shown `url`'s image loaded, from state `index` on.
    func everShowed(_ url: URL, from index: Int = 0) -> Bool {
        view.states[index...].contains { if case .loaded(let shown) = $0.phase { shown.facts.url == url } else { false } }
    }

    // MARK: States

    @Test func startsLoadingTheFirstTabThenShowsItsPreviewAndDetails() async throws {
        let presenter = makePresenter()
        presenter.start()
        #expect(view.last?.selectedIndex == 0)
        #expect(view.last?.phase == .loading(received: 0, expected: nil))
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(stubImage(width: 64, height: 48)))
        try await eventually { view.isShowingPreview }
        guard case .loaded(let shown)? = view.last?.phase else {
            Issue.record("not loaded")
            return
        }
        #expect(shown.facts.url == url(0))
        #expect(shown.facts.source == .network)
        #expect(shown.facts.width == 64 && shown.facts.height == 48)
        // Measured by the pipeline, from the request to the bytes: at least the time the loader was held.
        #expect(shown.facts.fetchTime > .zero)
        #expect(shown.facts.cacheState != .notCached)
        // The preview fits the pane: 100×30 leaves a preview box of 70×28, 68×26 inside.
        let area = BrowserLayout(size: TerminalSize(columns: 100, rows: 30)).previewArea
        #expect((shown.preview?.grid.columns ?? 0) <= area.width && (shown.preview?.grid.rows ?? 0) <= area.height)
        #expect((shown.preview?.grid.columns ?? 0) > area.width / 2)
    }

    @Test func reportsProgressAsTheBytesArrive() async throws {
        let presenter = makePresenter()
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.report(url(0), received: 450, expected: 1000)
        try await eventually { view.last?.phase == .loading(received: 450, expected: 1000) }
        #expect(view.last?.phase.percent == 45)
        loader.report(url(0), received: 452, expected: 1000)  // the same whole percent: no new frame
        loader.report(url(0), received: 990, expected: 1000)
        try await eventually { view.last?.phase.percent == 99 }
        #expect(!view.states.contains { $0.phase == .loading(received: 452, expected: 1000) })
        _ = presenter
    }

    @Test func aDownloadShowsWhatHasArrivedUntilTheFinalPreview() async throws {
        let pipeline = ImagePipeline(
            configuration: .init(
                fetcher: loader, decoder: TrailingBytesStubDecoder(), scheduler: WorkerPool(width: 1),
                partialPreviews: PartialPreviewPolicy(minimumInterval: .zero, costFactor: 0)))
        let presenter = makePresenter(pipeline: pipeline)
        presenter.start()
        await loader.waitForRequest(url(0))
        let body = stubImage(width: 64, height: 48, grey: 200) + Data(count: 3000)
        loader.feed(url(0), body.prefix(1200), expected: Int64(body.count))
        try await eventually {
            if case .loading(_, _, let partial?) = view.last?.phase { partial.grid.columns > 0 } else { false }
        }
        #expect(view.last?.phase.percent == 1200 * 100 / body.count)
        // The pane draws the picture; the status line carries the progress.
        let text = BrowserScreen(state: try #require(view.last)).compose().text
        #expect(!text.contains("loading image0"))
        #expect(text.contains("\(1200 * 100 / body.count)%"))
        loader.release(url(0), with: .success(body))
        try await eventually { view.isShowingPreview }
        guard case .loaded(let shown)? = view.last?.phase else { return }
        #expect(shown.facts.byteCount == Int64(body.count))
    }

    @Test func aFailureIsOneLineAndTheBrowserKeepsWorking() async throws {
        let presenter = makePresenter()
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .failure(ImagePipelineError.notFound(url(0), status: 404)))
        try await eventually { if case .failed = view.last?.phase { true } else { false } }
        #expect(view.last?.phase == .failed("http://example.test/0.png: HTTP 404 (not found)"))
        presenter.handle(.next)
        await loader.waitForRequest(url(1))
        loader.release(url(1), with: .success(stubImage()))
        try await eventually { view.shownURL == url(1) }
    }

    @Test func anImageThatCannotBeDecodedFails() async throws {
        let presenter = makePresenter()
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(Data("GIF89a not really".utf8)))
        try await eventually { if case .failed = view.last?.phase { true } else { false } }
        #expect(view.last?.phase == .failed(ImageDecodingError.notAnImage.message))
        #expect(loader.discardedURLs == [url(0)], "bytes the decoder refuses are dropped from the caches")
        _ = presenter
    }

    @Test func stopCancelsTheTransferAndALateAnswerChangesNothing() async throws {
        let presenter = makePresenter()
        presenter.start()
        await loader.waitForRequest(url(0))
        presenter.handle(.stop)
        #expect(view.last?.phase == .cancelled)
        #expect(view.last?.notice == Notice("stopped loading image0"))
        try await eventually { loader.cancelledURLs == [url(0)] }
        let count = view.states.count
        try await eventually { !presenter.isWorking(on: url(0)) }
        #expect(view.states.count == count, "the cancelled answer changed nothing")
        // r tries again.
        presenter.handle(.reload)
        await loader.waitForRequest(url(0))
        #expect(loader.calls(for: url(0)).last?.request.cachePolicy == .reload)
    }

    // MARK: The stale-response rule

    @Test func theLastSelectionWinsWhenResponsesArriveInReverseOrder() async throws {
        let presenter = makePresenter()
        presenter.start()
        presenter.handle(.next)
        presenter.handle(.next)
        #expect(view.last?.selectedIndex == 2)
        await loader.waitForRequest(url(2))
        // Tab 0 is two away now: given up. Tab 1 is a neighbour: its request goes on, at low priority.
        try await eventually { loader.cancelledURLs == [url(0)] }
        #expect(loader.isWaiting(for: url(1)))
        let selected = view.states.count
        loader.release(url(2), with: .success(stubImage(grey: 200)))
        try await eventually { view.shownURL == url(2) && view.isShowingPreview }
        // The neighbour's answer comes last: it is kept for later, never shown now.
        loader.release(url(1), with: .success(stubImage(grey: 100)))
        try await eventually { presenter.hasPreview(at: 1) && !presenter.isWorking(on: url(1)) }
        #expect(!everShowed(url(1), from: selected))
        for state in view.states[selected...] { #expect(state.selectedIndex == 2) }
    }

    @Test func anOlderResponseArrivingLastNeverReachesTheScreen() async throws {
        // A loader that does not notice cancellation: the old request answers after the new one,
        // in the order the test releases them.
        let stubborn = StubbornLoader()
        let pipeline = ImagePipeline(configuration: .init(fetcher: stubborn, decoder: StubDecoder()))
        let presenter = makePresenter(pipeline: pipeline)
        presenter.start()
        presenter.handle(.next)
        try await eventually { stubborn.isWaiting(for: url(0)) && stubborn.isWaiting(for: url(1)) }
        stubborn.release(url(1))
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        stubborn.release(url(0))
        try await eventually { stubborn.finished.contains(url(0)) }
        try await eventually { !presenter.isWorking(on: url(0)) }
        #expect(view.shownURL == url(1))
        #expect(!everShowed(url(0)))
    }

    @Test func rapidSwitchingEndsOnTheLastTab() async throws {
        let presenter = makePresenter()
        presenter.start()
        for _ in 0..<5 { presenter.handle(.next) }
        presenter.handle(.previous)
        presenter.handle(.jump(3))
        // Requests given up on the way are gone from the loader once the cancellations are carried out.
        await loader.waitForRequest(url(3))
        // Release everything still waiting, oldest first.
        for call in loader.pending { loader.release(call.request.url, with: .success(stubImage())) }
        try await eventually { view.shownURL == url(3) && view.isShowingPreview }
        // Its neighbours are prefetched (unless a request made on the way, released above, already
        // brought them and is being decoded); their answers change nothing on screen.
        for neighbour in [2, 4] {
            try await eventually { loader.isWaiting(for: url(neighbour)) || !presenter.isWorking(on: url(neighbour)) }
            if loader.isWaiting(for: url(neighbour)) { loader.release(url(neighbour), with: .success(stubImage())) }
            try await eventually { !presenter.isWorking(on: url(neighbour)) }
        }
        #expect(view.last?.selectedIndex == 3)
        #expect(view.shownURL == url(3))
    }

    // MARK: What the pipeline keeps

    @Test func returningToATabShowsItFromMemoryWithoutAskingTheLoader() async throws {
        let presenter = try await started()
        presenter.handle(.next)
        await loader.waitForRequest(url(1))
        loader.release(url(1), with: .success(stubImage(grey: 30)))
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        presenter.handle(.previous)
        // Shown in the same turn: no await between the key and the frame.
        #expect(view.shownURL == url(0) && view.isShowingPreview)
        guard case .loaded(let shown)? = view.last?.phase else { return }
        #expect(shown.facts.source == .memory)
        #expect(loader.calls(for: url(0)).count == 1)
    }

    @Test func resizeRendersAgainFromTheDecodedImage() async throws {
        let presenter = try await started()
        guard case .loaded(let before)? = view.last?.phase, let small = before.preview?.grid else {
            Issue.record("no preview")
            return
        }
        presenter.resize(to: TerminalSize(columns: 160, rows: 50))
        try await eventually {
            if case .loaded(let shown)? = view.last?.phase, let grid = shown.preview?.grid { grid.rows > small.rows } else { false }
        }
        let area = BrowserLayout(size: TerminalSize(columns: 160, rows: 50)).previewArea
        guard case .loaded(let after)? = view.last?.phase, let large = after.preview?.grid else { return }
        #expect(large.columns <= area.width && large.rows <= area.height)
        #expect(loader.calls(for: url(0)).count == 1, "no refetch")
    }

    @Test func aTerminalTooSmallShowsNoPreviewUntilItGrows() async throws {
        let presenter = try await started()
        presenter.resize(to: TerminalSize(columns: 30, rows: 8))
        #expect(BrowserScreen(state: view.last!).compose().text.contains("terminal too small: 30×8"))
        presenter.resize(to: TerminalSize(columns: 100, rows: 30))
        try await eventually { view.isShowingPreview }
        #expect(loader.calls(for: url(0)).count == 1)
    }

    @Test func modeSwitchRendersAsciiFromTheSameImage() async throws {
        let presenter = try await started()
        presenter.handle(.toggleMode)
        #expect(view.last?.mode == .ascii)
        try await eventually {
            if case .loaded(let shown)? = view.last?.phase, let grid = shown.preview?.grid {
                grid.cells.allSatisfy { $0.character.isASCII }
            } else {
                false
            }
        }
        #expect(loader.calls.filter { $0.request.url == url(0) }.count == 1)
    }

    @Test func reloadAsksTheLoaderToBypassTheCaches() async throws {
        let presenter = try await started()
        presenter.handle(.reload)
        #expect(view.last?.phase == .loading(received: 0, expected: nil))
        await loader.waitForRequest(url(0))
        #expect(loader.calls(for: url(0)).map(\.request.cachePolicy) == [.useCache, .reload])
        loader.release(url(0), with: .success(stubImage(grey: 10)))
        try await eventually { view.isShowingPreview }
    }

    @Test func aTabDecodedButNotRenderedForThisPaneNeverShowsThePreviousTab() async throws {
        let presenter = try await started()
        presenter.handle(.next)
        await loader.waitForRequest(url(1))
        loader.release(url(1), with: .success(stubImage(grey: 20)))
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        // ASCII previews exist now for image1 only; image0 is decoded but has none.
        presenter.handle(.toggleMode)
        try await eventually {
            if case .loaded(let shown)? = view.last?.phase {
                shown.preview?.grid.cells.allSatisfy { $0.character.isASCII } == true
            } else {
                false
            }
        }
        let before = view.states.count
        presenter.handle(.previous)
        #expect(view.shownURL == url(0), "at once: image0's details, its preview still rendering")
        try await eventually { view.shownURL == url(0) && view.isShowingPreview }
        for state in view.states[before...] {
            if case .loaded(let shown) = state.phase { #expect(shown.facts.url == url(0)) }
        }
    }

    @Test func aReloadThatBringsNewBytesShowsTheNewPicture() async throws {
        let presenter = makePresenter()
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(stubImage(grey: 10)))
        try await eventually { view.isShowingPreview }
        guard case .loaded(let first)? = view.last?.phase else { return }
        presenter.handle(.reload)
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(stubImage(grey: 250)))
        try await eventually {
            if case .loaded(let shown)? = view.last?.phase { shown.preview != nil && shown.preview != first.preview } else { false }
        }
    }

    // MARK: Prefetching

    @Test func neighboursArePrefetchedOnlyOnceTheCurrentImageIsShown() async throws {
        let presenter = makePresenter()
        presenter.start()
        presenter.handle(.jump(2))
        await loader.waitForRequest(url(2))
        // Tab 0's request was given up (two away); tab 1 was never selected, so nothing is asked for it yet.
        try await eventually { loader.pending.map(\.request.url) == [url(2)] }
        #expect(loader.pending.map(\.request.url) == [url(2)])
        loader.release(url(2), with: .success(stubImage()))
        await loader.waitForRequest(url(1))
        await loader.waitForRequest(url(3))
        loader.release(url(3), with: .success(stubImage(grey: 99)))
        try await eventually { presenter.hasPreview(at: 3) }
        // The prefetched neighbour shows at once, from memory.
        presenter.handle(.next)
        #expect(view.shownURL == url(3) && view.isShowingPreview)
        #expect(loader.calls(for: url(3)).count == 1)
    }

    @Test func selectingATabWhosePrefetchIsUnderWayWaitsForItInsteadOfAskingAgain() async throws {
        let presenter = try await started()
        await loader.waitForRequest(url(1))
        presenter.handle(.next)
        #expect(view.last?.phase == .loading(received: 0, expected: nil))
        loader.report(url(1), received: 300, expected: 1000)
        try await eventually { view.last?.phase.percent == 30 }
        loader.release(url(1), with: .success(stubImage(grey: 5)))
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        #expect(loader.calls(for: url(1)).count == 1)
    }

    @Test func leavingATabKeepsItsDownloadAndComingBackContinuesIt() async throws {
        let presenter = makePresenter()
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.report(url(0), received: 250, expected: 1000)
        try await eventually { view.last?.phase.percent == 25 }
        presenter.handle(.next)
        #expect(loader.isWaiting(for: url(0)), "a neighbour's download goes on")
        #expect(loader.cancelledURLs.isEmpty)
        presenter.handle(.previous)
        // Back on it: its progress at once, and the same request, not a new one.
        #expect(view.last?.phase.percent == 25)
        #expect(loader.calls(for: url(0)).count == 1)
        loader.release(url(0), with: .success(stubImage()))
        try await eventually { view.shownURL == url(0) && view.isShowingPreview }
        #expect(loader.calls(for: url(0)).count == 1)
    }

    @Test func theSelectedImageDecodesBeforeTheNeighbourItLeft() async throws {
        let scheduler = ManualScheduler()
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: scheduler))
        let presenter = makePresenter(pipeline: pipeline)
        presenter.start()
        await loader.waitForRequest(url(0))
        loader.release(url(0), with: .success(stubImage(grey: 1)))
        await scheduler.waitForWork()  // image0's header
        presenter.handle(.next)
        await loader.waitForRequest(url(1))
        loader.release(url(1), with: .success(stubImage(grey: 2)))
        await scheduler.waitForWork(count: 2)
        // Tab 0 is a neighbour now: its work waits, lowered, behind the selected tab's.
        #expect(scheduler.queued == [.high, .low])
        try await scheduler.run(atLeast: .high) { view.shownURL == url(1) && view.isShowingPreview }
        #expect(!presenter.hasPreview(at: 0), "the neighbour's work has not run yet")
        try await scheduler.run { presenter.hasPreview(at: 0) }
    }

    @Test func tenQuickSwitchesDecodeOnlyTheFirstAndTheLastInFull() async throws {
        // Twelve tall images, each 400 rows; the decoder counts rows and checks between them.
        let catalog = (0..<12).map { AppImage(name: "tall\($0)", url: URL(string: "http://example.test/tall\($0).png")!) }
        let instant = InstantLoader(
            images: Dictionary(
                uniqueKeysWithValues: catalog.enumerated().map { index, image in
                    (image.url, stubImage(width: 100, height: 400, grey: UInt8(index)))
                }))
        let decoder = RowCountingDecoder()
        let pipeline = ImagePipeline(configuration: .init(fetcher: instant, decoder: decoder, scheduler: WorkerPool(width: 1)))
        let presenter = makePresenter(catalog: Catalog(images: catalog, origin: .builtIn), pipeline: pipeline)
        decoder.pause(atRow: 10)
        presenter.start()
        await decoder.waitUntilPaused()
        // Ten presses of → while the first image decodes.
        for _ in 0..<10 { presenter.handle(.next) }
        decoder.resume()
        try await eventually { view.shownURL == catalog[10].url && view.isShowingPreview }
        // Decoded to the end: the last first; after it, at most its neighbours (prefetched once it is on screen).
        let completed = decoder.completed
        #expect(completed.first == 10, "\(completed)")
        #expect(Set(completed).isSubset(of: [9, 10, 11]), "\(completed)")
        #expect((decoder.rows[0] ?? 0) < 400, "the first stopped once it was left two tabs behind")
        for index in 1...8 { #expect(decoder.rows[UInt8(index)] == nil, "tab \(index) was passed over: never decoded") }
        presenter.shutDown()
    }

    @Test func movingAwayCancelsPrefetchesThatAreNoLongerNeighbours() async throws {
        let presenter = try await started()
        await loader.waitForRequest(url(1))
        presenter.handle(.jump(4))
        try await eventually { loader.cancelledURLs.contains(url(1)) }
        await loader.waitForRequest(url(4))
    }

    // MARK: Keys, panels, saving, paging

    @Test func escapeClosesAPanelFirstAndQuitsOtherwise() async throws {
        let presenter = try await started()
        #expect(presenter.handle(.toggleHelp))
        #expect(view.last?.overlay == .help)
        // Any key closes the panel, and does nothing else.
        #expect(presenter.handle(.next))
        #expect(view.last?.overlay == nil)
        #expect(view.last?.selectedIndex == 0)
        #expect(presenter.handle(.dismiss) == false)
        #expect(presenter.handle(.quit) == false)
    }

    @Test func saveWritesBesideEarlierCopiesWithoutClobbering() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let presenter = makePresenter(saveFolder: folder)
        presenter.start()
        await loader.waitForRequest(url(0))
        let bytes = stubImage(grey: 77)
        loader.release(url(0), with: .success(bytes))
        try await eventually { view.isShowingPreview }
        try Data("mine".utf8).write(to: folder.appendingPathComponent("0.png"))
        presenter.handle(.save)
        // The bytes come through the pipeline again, from its memory: no second request.
        try await eventually { view.last?.notice != nil }
        #expect(loader.calls(for: url(0)).count == 1)
        #expect(view.last?.notice?.text.hasSuffix("0-1.png") == true)
        #expect(try Data(contentsOf: folder.appendingPathComponent("0.png")) == Data("mine".utf8))
        #expect(try Data(contentsOf: folder.appendingPathComponent("0-1.png")) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["0-1.png", "0.png"])
    }

    @Test func saveBeforeAnythingLoadedSaysSo() async throws {
        let presenter = makePresenter()
        presenter.start()
        presenter.handle(.save)
        #expect(view.last?.notice == Notice("nothing to save yet", isError: true))
    }

    @Test func reachingTheLastTabLoadsTheNextPage() async throws {
        let page2 = URL(string: "http://example.test/page2.json")!
        let first = Catalog(images: Array(images[0..<2]), next: page2, origin: .remote(URL(string: "http://example.test/c.json")!))
        let second = Catalog(images: Array(images[2..<4]), origin: .remote(page2))
        let presenter = makePresenter(catalog: first, paging: MemoryCatalogPages(pages: [page2: second]))
        presenter.start()
        #expect(view.last?.hasMorePages == true)
        presenter.handle(.next)
        try await eventually { view.last?.images.count == 4 }
        #expect(view.last?.hasMorePages == false)
        #expect(view.last?.isLoadingMorePages == false)
        presenter.handle(.next)
        #expect(view.last?.selectedIndex == 2)
    }

    @Test func aPageThatFailsToLoadIsAnErrorNotice() async throws {
        let first = Catalog(
            images: Array(images[0..<2]), next: URL(string: "http://example.test/missing.json")!,
            origin: .remote(URL(string: "http://example.test/c.json")!))
        let presenter = makePresenter(catalog: first, paging: MemoryCatalogPages(pages: [:]))
        presenter.start()
        presenter.handle(.next)
        try await eventually { view.last?.notice?.isError == true }
        #expect(view.last?.notice?.text.contains("no such page") == true)
        #expect(view.last?.images.count == 2)
    }

    @Test func aNextPageThatLeadsBackStopsPaging() async throws {
        let first = URL(string: "http://example.test/c.json")!
        let page2 = URL(string: "http://example.test/page2.json")!
        let catalog = Catalog(images: Array(images[0..<2]), next: page2, origin: .remote(first))
        let loop = Catalog(images: Array(images[2..<3]), next: first, origin: .remote(page2))
        let presenter = makePresenter(catalog: catalog, paging: MemoryCatalogPages(pages: [page2: loop]))
        presenter.start()
        presenter.handle(.next)
        try await eventually { view.last?.images.count == 3 }
        presenter.handle(.next)
        try await eventually { view.last?.notice?.isError == true }
        #expect(view.last?.notice?.text.contains("already loaded") == true)
        #expect(view.last?.hasMorePages == false)
    }

    @Test func keysMapToCommands() {
        #expect(BrowserCommand(key: .right) == .next)
        #expect(BrowserCommand(key: .character("l")) == .next)
        #expect(BrowserCommand(key: .tab) == .next)
        #expect(BrowserCommand(key: .left) == .previous)
        #expect(BrowserCommand(key: .backTab) == .previous)
        #expect(BrowserCommand(key: .character("h")) == .previous)
        #expect(BrowserCommand(key: .character("1")) == .jump(0))
        #expect(BrowserCommand(key: .character("9")) == .jump(8))
        #expect(BrowserCommand(key: .character("0")) == .zoomFit)
        #expect(BrowserCommand(key: .character("٣")) == nil)
        #expect(BrowserCommand(key: .home) == .first)
        #expect(BrowserCommand(key: .end) == .last)
        #expect(BrowserCommand(key: .pageDown) == .pageForward)
        #expect(BrowserCommand(key: .pageUp) == .pageBack)
        #expect(BrowserCommand(key: .character("/")) == .find)
        #expect(BrowserCommand(key: .character("f")) == .toggleFullWidth)
        #expect(BrowserCommand(key: .character("+")) == .zoomIn)
        #expect(BrowserCommand(key: .character("=")) == .zoomIn)
        #expect(BrowserCommand(key: .character("-")) == .zoomOut)
        #expect(BrowserCommand(key: .character("H")) == .pan(dx: -1, dy: 0))
        #expect(BrowserCommand(key: .shiftDown) == .pan(dx: 0, dy: 1))
        #expect(BrowserCommand(key: .delete) == .trash)
        #expect(BrowserCommand(key: .character("D")) == .trash)
        #expect(BrowserCommand(key: .character("t")) == .toggleMark)
        #expect(BrowserCommand(key: .control("x")) == .keyHandler)
        #expect(BrowserCommand(key: .character("q")) == .quit)
        #expect(BrowserCommand(key: .interrupt) == .quit)
        #expect(BrowserCommand(key: .escape) == .dismiss)
        #expect(BrowserCommand(key: .character("r")) == .reload)
        #expect(BrowserCommand(key: .character("d")) == .save)
        #expect(BrowserCommand(key: .character("m")) == .toggleMode)
        #expect(BrowserCommand(key: .character("?")) == .toggleHelp)
        #expect(BrowserCommand(key: .character("c")) == .toggleCache)
        #expect(BrowserCommand(key: .up) == .lineUp)
        #expect(BrowserCommand(key: .enter) == nil)
        #expect(BrowserCommand(key: .suspend) == nil)
    }
}

/// A loader that answers each URL when the test releases it and ignores cancellation, as a
/// server that answers out of order would.
final class StubbornLoader: ImageFetching, Sendable {
    private struct State {
        var waiting: [URL: CheckedContinuation<Void, Never>] = [:]
        var released: Set<URL> = []
        var finished: [URL] = []
    }

    private let state = Locked(State())

    var finished: [URL] { state.withLock { $0.finished } }

    func isWaiting(for url: URL) -> Bool { state.withLock { $0.waiting[url] != nil } }

    /// Lets the request for `url` answer (at once if it has not come yet).
    func release(_ url: URL) {
        let waiter = state.withLock { state in
            state.released.insert(url)
            return state.waiting.removeValue(forKey: url)
        }
        waiter?.resume()
    }

    func fetch(_ request: ImageRequest, progress: @escaping TransferProgress, body: BodyTap?) async throws -> ImageResponse {
        // A continuation without a cancellation handler: cancelling the task changes nothing.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state in
                if state.released.contains(request.url) { return true }
                state.waiting[request.url] = continuation
                return false
            }
            if released { continuation.resume() }
        }
        state.withLock { $0.finished.append(request.url) }
        return makeResponse(url: request.url, bytes: stubImage(), source: .network)
    }

    func discard(_ url: URL) {}
}

/// A loader that answers at once from memory.
final class InstantLoader: ImageFetching {
    let images: [URL: Data]

    init(images: [URL: Data]) {
        self.images = images
    }

    func fetch(_ request: ImageRequest, progress: @escaping TransferProgress, body: BodyTap?) async throws -> ImageResponse {
        guard let bytes = images[request.url] else { throw ImagePipelineError.notFound(request.url, status: 404) }
        return makeResponse(url: request.url, bytes: bytes, source: .network)
    }

    func discard(_ url: URL) {}
}
