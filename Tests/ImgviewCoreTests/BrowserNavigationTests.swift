import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewPipeline

/// Moving far in a big catalog: Home, End, pages, finding a tab by name, typing its number, the
/// mouse, and tabs that keep arriving while a folder is listed.
@MainActor
@Suite("Browser navigation")
struct BrowserNavigationTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let images = (0..<40).map { AppImage(name: "photo\($0 + 1)", url: URL(string: "http://example.test/\($0).png")!) }

    func makePresenter(images: [AppImage]? = nil, moreTabs: AsyncStream<[AppImage]>? = nil) -> BrowserPresenter {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images ?? self.images, origin: .builtIn),
            configuration: .init(
                pipeline: pipeline, moreTabs: moreTabs, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0),
            terminalSize: TerminalSize(columns: 120, rows: 36), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        return presenter
    }

    var selected: Int? { view.last?.selectedIndex }

    @Test func homeEndAndPagesMoveAcrossTheCatalog() {
        let presenter = makePresenter()
        let page = TabStripPlacement(state: presenter.state, columns: 120).strip.tabs.count
        #expect(page > 3 && page < 40)
        presenter.handle(key: .end)
        #expect(selected == 39)
        #expect(view.last?.phase == .loading(received: 0, expected: nil))
        presenter.handle(key: .home)
        #expect(selected == 0)
        presenter.handle(key: .pageDown)
        #expect(selected == page, "a page is as many tabs as the strip shows")
        presenter.handle(key: .pageDown)
        #expect(selected ?? 0 > page)
        presenter.handle(key: .pageUp)
        presenter.handle(key: .pageUp)
        presenter.handle(key: .pageUp)
        #expect(selected == 0, "no wrapping round: the first page stops at the first tab")
        presenter.handle(key: .end)
        presenter.handle(key: .pageDown)
        presenter.handle(key: .right)
        #expect(selected == 39, "nor past the last")
    }

    @Test func slashFindsATabAsYouTypeAndEscapeGoesBack() {
        let presenter = makePresenter()
        presenter.handle(key: .right)
        presenter.handle(key: .character("/"))
        #expect(view.last?.prompt == BrowserPrompt(kind: .find, origin: 1))
        // From the tab where the search started: photo2 matches "2" first, then "23" is photo23.
        presenter.handle(key: .character("2"))
        #expect(selected == 1)
        presenter.handle(key: .character("3"))
        #expect(selected == 22)
        #expect(view.last?.prompt?.text == "23")
        presenter.handle(key: .backspace)
        #expect(selected == 1)
        presenter.handle(key: .down)
        #expect(selected == 11, "↓ goes on to the next match: photo12")
        presenter.handle(key: .character("x"))
        #expect(view.last?.prompt?.hasNoMatch == true)
        #expect(selected == 11, "no match leaves the selection where it was")
        presenter.handle(key: .escape)
        #expect(view.last?.prompt == nil)
        #expect(selected == 1, "Esc goes back to where the search started")
        #expect(presenter.handle(key: .escape) == false, "and Esc again quits")
    }

    @Test func enterKeepsTheFoundTabAndOtherKeysCloseThePromptAndAct() {
        let presenter = makePresenter()
        presenter.handle(key: .character("/"))
        for character in "hoto35" { presenter.handle(key: .character(character)) }
        presenter.handle(key: .enter)
        #expect(view.last?.prompt == nil)
        #expect(selected == 34)
        presenter.handle(key: .character("/"))
        presenter.handle(key: .character("9"))
        #expect(selected == 38, "from photo35 on, photo39 is the first with a 9")
        presenter.handle(key: .left)
        #expect(view.last?.prompt == nil)
        #expect(selected == 37)
    }

    @Test func digitsGoToATabPastNine() {
        let presenter = makePresenter()
        presenter.handle(key: .character("1"))
        #expect(selected == 0)
        #expect(view.last?.prompt?.kind == .goTo)
        presenter.handle(key: .character("2"))
        #expect(selected == 11)
        #expect(view.last?.prompt == nil, "no third digit can name one of 40 tabs: done")
        presenter.handle(key: .character("4"))
        presenter.handle(key: .character("0"))
        #expect(selected == 39)
        presenter.handle(key: .character("3"))
        presenter.handle(key: .enter)
        #expect(selected == 2 && view.last?.prompt == nil)
        presenter.handle(key: .character("2"))
        presenter.handle(key: .escape)
        #expect(selected == 2, "Esc goes back")
        // Without a prompt, 0 is zoom's fit, not a digit.
        presenter.handle(key: .character("0"))
        #expect(view.last?.prompt == nil && selected == 2)
    }

    @Test func inACatalogOfNineOrFewerADigitIsTheTab() {
        let presenter = makePresenter(images: Array(images.prefix(5)))
        presenter.handle(key: .character("5"))
        #expect(selected == 4 && view.last?.prompt == nil)
        presenter.handle(key: .character("1"))
        #expect(selected == 0)
        presenter.handle(key: .character("7"))
        #expect(view.last?.prompt?.hasNoMatch == true)
        #expect(selected == 0)
    }

    @Test func theMouseSelectsATabAndItsWheelMoves() {
        let presenter = makePresenter()
        let placement = TabStripPlacement(state: presenter.state, columns: 120)
        let third = placement.strip.tabs[2]
        presenter.handle(mouse: MouseEvent(.press(button: 0), column: placement.column + third.column + 2, row: 0))
        #expect(selected == 2)
        presenter.handle(mouse: MouseEvent(.wheelDown, column: 20, row: 10))
        presenter.handle(mouse: MouseEvent(.wheelDown, column: 20, row: 10))
        #expect(selected == 4)
        presenter.handle(mouse: MouseEvent(.wheelUp, column: 20, row: 0))
        #expect(selected == 3)
    }

    @Test func tabsArriveWhileTheFolderIsListedAndTheSelectionStays() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: [AppImage].self)
        let presenter = makePresenter(images: Array(images.prefix(2)), moreTabs: stream)
        #expect(view.last?.hasMorePages == true && view.last?.isLoadingMorePages == true)
        presenter.handle(key: .right)
        continuation.yield(Array(images[2..<10]))
        try await eventually { view.last?.images.count == 10 }
        #expect(selected == 1)
        continuation.yield(Array(images[10...]))
        continuation.finish()
        try await eventually { view.last?.isLoadingMorePages == false }
        #expect(view.last?.images.count == 40 && view.last?.hasMorePages == false)
        presenter.handle(key: .end)
        #expect(selected == 39)
    }

    @Test func noticesLastUntilTheNextKey() {
        let presenter = makePresenter()
        presenter.handle(.save)
        #expect(view.last?.notice != nil)
        presenter.handle(key: .character("f"))
        #expect(view.last?.notice == nil)
        #expect(view.last?.isFullWidth == true)
        #expect(view.last?.layout.showsMetadata == false)
    }
}
