import Foundation
import Testing

@testable import ImgviewCore

/// The presenter with a spy view and a loader held by hand: every state, and the rule that
/// whatever the user selected last is what the screen shows, however responses race.
@MainActor
@Suite("BrowserPresenter")
struct BrowserPresenterTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let images = (0..<6).map { AppImage(name: "image\($0)", url: URL(string: "http://example.test/\($0).png")!) }

    func url(_ index: Int) -> URL { images[index].url }

    func makePresenter(
        catalog: Catalog? = nil, paging: (any CatalogPaging)? = nil, saveFolder: URL = FileManager.default.temporaryDirectory,
        size: TerminalSize = TerminalSize(columns: 100, rows: 30)
    ) -> BrowserPresenter {
        let presenter = BrowserPresenter(
            catalog: catalog ?? Catalog(images: images, origin: .builtIn),
            configuration: .init(loader: loader, decoder: StubDecoder(), catalogPaging: paging, saveFolder: saveFolder),
            terminalSize: size, mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        return presenter
    }

    /// Starts the presenter and shows the first image.
    func started() async throws -> BrowserPresenter {
        let presenter = makePresenter()
        presenter.start()
        try await eventually { loader.isWaiting(for: url(0)) }
        loader.release(url(0), with: .success(stubImage()))
        try await eventually { view.isShowingPreview }
        return presenter
    }

    // MARK: States

    @Test func startsLoadingTheFirstTabThenShowsItsPreviewAndDetails() async throws {
        let presenter = makePresenter()
        presenter.start()
        #expect(view.last?.selectedIndex == 0)
        #expect(view.last?.phase == .loading(received: 0, expected: nil))
        try await eventually { loader.isWaiting(for: url(0)) }
        loader.release(url(0), with: .success(stubImage(width: 64, height: 48)))
        try await eventually { view.isShowingPreview }
        guard case .loaded(let shown)? = view.last?.phase else {
            Issue.record("not loaded")
            return
        }
        #expect(shown.details.url == url(0))
        #expect(shown.details.source == .network)
        #expect(shown.details.width == 64 && shown.details.height == 48)
        #expect(shown.details.fetchTime == .milliseconds(12))
        #expect(shown.details.cacheState != .notCached)
        // The preview fits the pane: 100×30 leaves a preview box of 70×28, 68×26 inside.
        let area = BrowserLayout(size: TerminalSize(columns: 100, rows: 30)).previewArea
        #expect((shown.preview?.columns ?? 0) <= area.width && (shown.preview?.rows ?? 0) <= area.height)
        #expect((shown.preview?.columns ?? 0) > area.width / 2)
    }

    @Test func reportsProgressAsTheBytesArrive() async throws {
        let presenter = makePresenter()
        presenter.start()
        try await eventually { loader.isWaiting(for: url(0)) }
        loader.report(url(0), received: 450, expected: 1000)
        try await eventually { view.last?.phase == .loading(received: 450, expected: 1000) }
        #expect(view.last?.phase.percent == 45)
        loader.report(url(0), received: 452, expected: 1000)  // the same whole percent: no new frame
        loader.report(url(0), received: 990, expected: 1000)
        try await eventually { view.last?.phase.percent == 99 }
        #expect(!view.states.contains { $0.phase == .loading(received: 452, expected: 1000) })
        _ = presenter
    }

    @Test func aFailureIsOneLineAndTheBrowserKeepsWorking() async throws {
        let presenter = makePresenter()
        presenter.start()
        try await eventually { loader.isWaiting(for: url(0)) }
        loader.release(url(0), with: .failure(ImagePipelineError.notFound(url(0), status: 404)))
        try await eventually { if case .failed = view.last?.phase { true } else { false } }
        #expect(view.last?.phase == .failed("http://example.test/0.png: HTTP 404 (not found)"))
        presenter.handle(.next)
        try await eventually { loader.isWaiting(for: url(1)) }
        loader.release(url(1), with: .success(stubImage()))
        try await eventually { view.shownURL == url(1) }
    }

    @Test func anImageThatCannotBeDecodedFails() async throws {
        let presenter = makePresenter()
        presenter.start()
        try await eventually { loader.isWaiting(for: url(0)) }
        loader.release(url(0), with: .success(Data("GIF89a not really".utf8)))
        try await eventually { if case .failed = view.last?.phase { true } else { false } }
        #expect(view.last?.phase == .failed(ImageDecodingError.notAnImage.message))
        _ = presenter
    }

    @Test func stopCancelsTheTransferAndALateAnswerChangesNothing() async throws {
        let presenter = makePresenter()
        presenter.start()
        try await eventually { loader.isWaiting(for: url(0)) }
        presenter.handle(.stop)
        #expect(view.last?.phase == .cancelled)
        #expect(view.last?.notice == Notice("stopped loading image0"))
        try await eventually { loader.cancelledURLs == [url(0)] }
        let count = view.states.count
        try await Task.sleep(for: .milliseconds(50))
        #expect(view.states.count == count)
        // r tries again.
        presenter.handle(.reload)
        try await eventually { loader.isWaiting(for: url(0)) }
        #expect(loader.calls(for: url(0)).last?.request.cachePolicy == .reload)
    }

    // MARK: The stale-response rule

    @Test func theLastSelectionWinsWhenResponsesArriveInReverseOrder() async throws {
        let presenter = makePresenter()
        presenter.start()
        presenter.handle(.next)
        presenter.handle(.next)
        #expect(view.last?.selectedIndex == 2)
        // Superseded requests are cancelled (the held loader answers them with CancellationError);
        // StubbornLoader below answers late instead.
        try await eventually { loader.calls.count == 3 }
        try await eventually { loader.cancelledURLs.count == 2 }
        #expect(Set(loader.cancelledURLs) == [url(0), url(1)])
        let selected = view.states.count
        loader.release(url(2), with: .success(stubImage(grey: 200)))
        try await eventually { view.shownURL == url(2) && view.isShowingPreview }
        // Late answers to the old requests (a loader that ignores cancellation) must not show.
        try await Task.sleep(for: .milliseconds(50))
        for state in view.states[selected...] {
            if case .loaded(let shown) = state.phase { #expect(shown.details.url == url(2)) }
            #expect(state.selectedIndex == 2)
        }
    }

    @Test func anOlderResponseArrivingLastNeverReachesTheScreen() async throws {
        // A loader that does not notice cancellation: the old request answers after the new one.
        let stubborn = StubbornLoader()
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(loader: stubborn, decoder: StubDecoder(), saveFolder: FileManager.default.temporaryDirectory),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        stubborn.delays = [url(0): .milliseconds(300), url(1): .milliseconds(10)]
        presenter.start()
        presenter.handle(.next)
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        try await Task.sleep(for: .milliseconds(400))
        #expect(stubborn.finished.contains(url(0)), "the old response did arrive")
        #expect(view.shownURL == url(1))
        #expect(!view.states.contains { if case .loaded(let shown) = $0.phase { shown.details.url == url(0) } else { false } })
    }

    @Test func rapidSwitchingEndsOnTheLastTab() async throws {
        let presenter = makePresenter()
        presenter.start()
        for _ in 0..<5 { presenter.handle(.next) }
        presenter.handle(.previous)
        presenter.handle(.jump(3))
        try await eventually { loader.isWaiting(for: url(3)) }
        // Release everything still waiting, oldest first.
        for call in loader.pending { loader.release(call.request.url, with: .success(stubImage())) }
        try await eventually { view.shownURL == url(3) && view.isShowingPreview }
        try await Task.sleep(for: .milliseconds(50))
        #expect(view.last?.selectedIndex == 3)
        #expect(view.shownURL == url(3))
    }

    // MARK: Caching in the presenter

    @Test func returningToATabShowsItFromMemoryWithoutAskingTheLoader() async throws {
        let presenter = try await started()
        presenter.handle(.next)
        try await eventually { loader.isWaiting(for: url(1)) }
        loader.release(url(1), with: .success(stubImage(grey: 30)))
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        presenter.handle(.previous)
        // Shown in the same turn: no await between the key and the frame.
        #expect(view.shownURL == url(0) && view.isShowingPreview)
        guard case .loaded(let shown)? = view.last?.phase else { return }
        #expect(shown.details.source == .memory)
        #expect(loader.calls(for: url(0)).count == 1)
    }

    @Test func resizeRendersAgainFromTheDecodedImage() async throws {
        let presenter = try await started()
        guard case .loaded(let before)? = view.last?.phase, let small = before.preview else {
            Issue.record("no preview")
            return
        }
        presenter.resize(to: TerminalSize(columns: 160, rows: 50))
        try await eventually {
            if case .loaded(let shown)? = view.last?.phase, let grid = shown.preview { grid.rows > small.rows } else { false }
        }
        let area = BrowserLayout(size: TerminalSize(columns: 160, rows: 50)).previewArea
        guard case .loaded(let after)? = view.last?.phase, let large = after.preview else { return }
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
            if case .loaded(let shown)? = view.last?.phase, let grid = shown.preview {
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
        try await eventually { loader.isWaiting(for: url(0)) }
        #expect(loader.calls(for: url(0)).map(\.request.cachePolicy) == [.useCache, .reload])
        loader.release(url(0), with: .success(stubImage(grey: 10)))
        try await eventually { view.isShowingPreview }
    }

    @Test func aTabDecodedButNotRenderedForThisPaneNeverShowsThePreviousTab() async throws {
        let presenter = try await started()
        presenter.handle(.next)
        try await eventually { loader.isWaiting(for: url(1)) }
        loader.release(url(1), with: .success(stubImage(grey: 20)))
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        // ASCII previews exist now for image1 only; image0 is decoded but has none.
        presenter.handle(.toggleMode)
        try await eventually {
            if case .loaded(let shown)? = view.last?.phase {
                shown.preview?.cells.allSatisfy { $0.character.isASCII } == true
            } else {
                false
            }
        }
        let before = view.states.count
        presenter.handle(.previous)
        #expect(view.shownURL == url(0), "at once: image0's details, its preview still rendering")
        try await eventually { view.shownURL == url(0) && view.isShowingPreview }
        for state in view.states[before...] {
            if case .loaded(let shown) = state.phase { #expect(shown.details.url == url(0)) }
        }
    }

    @Test func aReloadThatBringsNewBytesShowsTheNewPicture() async throws {
        let presenter = makePresenter()
        presenter.start()
        try await eventually { loader.isWaiting(for: url(0)) }
        loader.release(url(0), with: .success(stubImage(grey: 10)))
        try await eventually { view.isShowingPreview }
        guard case .loaded(let first)? = view.last?.phase else { return }
        presenter.handle(.reload)
        try await eventually { loader.isWaiting(for: url(0)) }
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
        try await eventually { loader.isWaiting(for: url(2)) }
        try await Task.sleep(for: .milliseconds(30))
        #expect(loader.pending.map(\.request.url) == [url(2)], "nothing competes with the current image")
        loader.release(url(2), with: .success(stubImage()))
        try await eventually { loader.isWaiting(for: url(1)) && loader.isWaiting(for: url(3)) }
        loader.release(url(3), with: .success(stubImage(grey: 99)))
        try await eventually { presenter.hasPrepared(url(3)) }
        // The prefetched neighbour shows at once, from memory.
        presenter.handle(.next)
        #expect(view.shownURL == url(3) && view.isShowingPreview)
        #expect(loader.calls(for: url(3)).count == 1)
    }

    @Test func selectingATabWhosePrefetchIsUnderWayWaitsForItInsteadOfAskingAgain() async throws {
        let presenter = try await started()
        try await eventually { loader.isWaiting(for: url(1)) }
        presenter.handle(.next)
        #expect(view.last?.phase == .loading(received: 0, expected: nil))
        loader.report(url(1), received: 300, expected: 1000)
        try await eventually { view.last?.phase.percent == 30 }
        loader.release(url(1), with: .success(stubImage(grey: 5)))
        try await eventually { view.shownURL == url(1) && view.isShowingPreview }
        #expect(loader.calls(for: url(1)).count == 1)
    }

    @Test func movingAwayCancelsPrefetchesThatAreNoLongerNeighbours() async throws {
        let presenter = try await started()
        try await eventually { loader.isWaiting(for: url(1)) }
        presenter.handle(.jump(4))
        try await eventually { loader.cancelledURLs.contains(url(1)) }
        try await eventually { loader.isWaiting(for: url(4)) }
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
        try await eventually { loader.isWaiting(for: url(0)) }
        let bytes = stubImage(grey: 77)
        loader.release(url(0), with: .success(bytes))
        try await eventually { view.isShowingPreview }
        try Data("mine".utf8).write(to: folder.appendingPathComponent("0.png"))
        presenter.handle(.save)
        try await eventually { view.last?.notice != nil }
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
        #expect(BrowserCommand(key: .character("0")) == nil)
        #expect(BrowserCommand(key: .character("٣")) == nil)
        #expect(BrowserCommand(key: .character("q")) == .quit)
        #expect(BrowserCommand(key: .interrupt) == .quit)
        #expect(BrowserCommand(key: .escape) == .dismiss)
        #expect(BrowserCommand(key: .character("r")) == .reload)
        #expect(BrowserCommand(key: .character("d")) == .save)
        #expect(BrowserCommand(key: .character("m")) == .toggleMode)
        #expect(BrowserCommand(key: .character("?")) == .toggleHelp)
        #expect(BrowserCommand(key: .character("c")) == .toggleCache)
        #expect(BrowserCommand(key: .up) == nil)
    }
}

/// A loader that answers each URL after a set delay and ignores cancellation, as a server that
/// answers out of order would.
final class StubbornLoader: ImageLoading, @unchecked Sendable {
    private let lock = NSLock()
    private var _delays: [URL: Duration] = [:]
    private var _finished: [URL] = []

    var delays: [URL: Duration] {
        get { lock.withLock { _delays } }
        set { lock.withLock { _delays = newValue } }
    }
    var finished: [URL] { lock.withLock { _finished } }

    func image(for request: ImageRequest, progress: ImageService.Progress?) async throws -> ImageResponse {
        let delay = delays[request.url] ?? .zero
        // Not Task.sleep: that would notice the cancellation this loader is meant to ignore.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + delay.seconds) { continuation.resume() }
        }
        lock.withLock { _finished.append(request.url) }
        return makeResponse(url: request.url, bytes: stubImage(), source: .network)
    }
}
