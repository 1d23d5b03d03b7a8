import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline

/// `f`, zoom and pan in the presenter: the same image shown differently, rendered again from the
/// decoded pixels without asking the loader.
@MainActor
@Suite("Browser view changes")
struct BrowserViewChangeTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let images = (0..<3).map { AppImage(name: "image\($0)", url: URL(string: "http://example.test/\($0).png")!) }

    func started(width: Int = 300, height: Int = 400) async throws -> BrowserPresenter {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        await loader.waitForRequest(images[0].url)
        loader.release(images[0].url, with: .success(stubImage(width: width, height: height)))
        try await eventually { view.isShowingPreview }
        return presenter
    }

    var shownGrid: CellGrid? {
        guard case .loaded(let shown)? = view.last?.phase else { return nil }
        return shown.preview?.grid
    }

    @Test func zoomingInRendersTheCentreLargerAndZeroGoesBackToFit() async throws {
        let presenter = try await started()
        let fitted = try #require(shownGrid)
        presenter.handle(.zoomIn)
        #expect(view.last?.viewport.zoom == Viewport.step)
        try await eventually { shownGrid != nil && shownGrid != fitted }
        let zoomed = try #require(shownGrid)
        // A 3:4 image in a 68×26 area is fitted by its height; zoomed, it fills more of the width.
        #expect(zoomed.columns > fitted.columns)
        presenter.handle(.zoomFit)
        #expect(view.last?.viewport == .fit)
        try await eventually { shownGrid == fitted }
        #expect(loader.calls.count == 1, "every view is rendered from the decoded image")
    }

    @Test func panMovesTheViewAndANewTabStartsFitted() async throws {
        let presenter = try await started()
        presenter.handle(.pan(dx: 1, dy: 0))
        #expect(view.last?.viewport == .fit, "nothing to pan at fit")
        presenter.handle(.zoomIn)
        presenter.handle(.zoomIn)
        let centred = try #require(view.last?.viewport)
        presenter.handle(.pan(dx: 0, dy: 1))
        let moved = try #require(view.last?.viewport)
        #expect(moved.centerY > centred.centerY && moved.centerX == centred.centerX)
        for _ in 0..<10 { presenter.handle(.pan(dx: 0, dy: 1)) }
        let bottom = try #require(view.last?.viewport)
        presenter.handle(.pan(dx: 0, dy: 1))
        #expect(view.last?.viewport == bottom, "the view stops at the image's edge")
        presenter.handle(.next)
        #expect(view.last?.viewport == .fit)
    }

    @Test func zoomStopsWhereACellShowsOnePixel() async throws {
        let presenter = try await started(width: 120, height: 160)
        for _ in 0..<20 { presenter.handle(.zoomIn) }
        let closest = try #require(view.last?.viewport.zoom)
        // Fitted, the 120×160 image is 39 cells wide: ×3.08 puts one pixel in each.
        #expect(abs(closest - 120.0 / 39) < 0.01)
        #expect(view.last?.notice?.text.contains("one pixel") == true)
        presenter.handle(.zoomOut)
        #expect((view.last?.viewport.zoom ?? 0) < closest)
    }

    @Test func fullWidthGivesThePreviewTheMetadataPanesRoom() async throws {
        let presenter = try await started(width: 400, height: 300)
        let narrow = try #require(shownGrid)
        presenter.handle(.toggleFullWidth)
        #expect(view.last?.layout.previewArea.width == 98)
        try await eventually { (shownGrid?.columns ?? 0) > narrow.columns }
        presenter.handle(.toggleFullWidth)
        try await eventually { shownGrid == narrow }
        #expect(loader.calls.count == 1)
    }

    @Test func zoomWaitsForTheImageToBeKnown() {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        presenter.handle(.zoomIn)
        #expect(view.last?.viewport == .fit)
    }
}
