import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline

/// `[` and `]` on a file of several pages: each page decoded on its own from the bytes already
/// fetched, the pane saying which one shows, a new tab starting at the first.
@MainActor
@Suite("Browser pages")
struct BrowserPageTests {
    /// The stub image as a document of three pages, page N drawn in grey N × 100.
    struct PagedDecoder: ImageDecoding {
        func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
            var header = try StubDecoder().inspect(bytes, probe: probe)
            header.pageCount = 3
            return header
        }

        func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
            let page = min(request.page, 2)
            let grey = UInt8(page * 100)
            var image = DecodedImage(
                header: header,
                pixels: PixelBuffer(width: header.storedWidth, height: header.storedHeight, filledWith: (grey, grey, grey, 255)))
            image.page = page
            return image
        }
    }

    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let images = (0..<2).map { AppImage(name: "scan\($0)", url: URL(string: "http://example.test/\($0).tif")!) }

    var shownGrid: CellGrid? {
        guard case .loaded(let shown)? = view.last?.phase else { return nil }
        return shown.preview?.grid
    }

    /// The metadata pane's page line, as drawn: "2 of 3  [ ]".
    var pageRow: String? {
        guard let state = view.last else { return nil }
        let frame = BrowserScreen(state: state).compose()
        for row in 0..<state.terminalSize.rows {
            let text = frame.text(ofRow: row)
            guard let range = text.range(of: " page    ") else { continue }
            return String(text[range.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: " │"))
        }
        return nil
    }

    @Test func bracketsTurnThePagesOfTheImageOnScreen() async throws {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: PagedDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        await loader.waitForRequest(images[0].url)
        loader.release(images[0].url, with: .success(stubImage(width: 40, height: 30)))
        try await eventually { view.isShowingPreview }
        let first = try #require(shownGrid)
        #expect(pageRow == "1 of 3  [ ]")

        presenter.handle(.previousPage)
        #expect(view.last?.page == 0 && view.last?.notice?.text == "the first page")
        presenter.handle(.nextPage)
        #expect(view.last?.page == 1)
        try await eventually { shownGrid != nil && shownGrid != first }
        #expect(pageRow == "2 of 3  [ ]")
        presenter.handle(.nextPage)
        try await eventually { pageRow == "3 of 3  [ ]" }
        presenter.handle(.nextPage)
        #expect(view.last?.page == 2 && view.last?.notice?.text == "the last page (3 of 3)")
        presenter.handle(.previousPage)
        presenter.handle(.previousPage)
        try await eventually { shownGrid == first }
        #expect(loader.calls.count == 1, "every page is decoded from the bytes fetched once")

        presenter.handle(.nextPage)
        presenter.handle(.next)
        #expect(view.last?.page == 0, "another tab starts at its first page")
    }

    @Test func theKeysAreBrackets() {
        #expect(BrowserCommand(key: .character("]")) == .nextPage)
        #expect(BrowserCommand(key: .character("[")) == .previousPage)
    }
}
