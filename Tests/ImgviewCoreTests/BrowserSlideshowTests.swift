import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline

/// The slideshow by an injected clock: the interval counts from when an image shows (a slow one
/// is not skipped), an animation plays its passes first, any key pauses, the end stops it; and
/// an order that needs the files read shows nothing until the first images are in it.
@MainActor
@Suite("Browser slideshow and order")
struct BrowserSlideshowTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let clock = ManualPlaybackClock()
    let images = (0..<3).map { AppImage(name: "image\($0)", url: URL(string: "http://example.test/\($0).png")!) }

    func makePresenter(
        decoder: any ImageDecoding = StubDecoder(), slideshow: Slideshow, ordering: ImageOrdering = ImageOrdering(order: .name),
        sortKeys: any SortKeyReading = FakeSortKeys([:])
    ) -> BrowserPresenter {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: decoder, scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(
                pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0, clock: clock,
                ordering: ordering, sortKeys: sortKeys, slideshow: slideshow),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        return presenter
    }

    func show(_ index: Int) async throws {
        await loader.waitForRequest(images[index].url)
        loader.release(images[index].url, with: .success(stubImage()))
        try await eventually { view.last?.selectedIndex == index && view.isShowingPreview }
    }

    @Test func eachImageShowsForTheIntervalFromWhenItIsShownUntilTheEnd() async throws {
        let presenter = makePresenter(slideshow: Slideshow(interval: .seconds(2), status: .running))
        presenter.start()
        // Loading: no time runs yet.
        #expect(clock.deadlines.isEmpty)
        clock.advance(by: .seconds(5))
        try await show(0)
        await clock.waitForSleeper()
        #expect(clock.deadlines == [clock.now + .seconds(2)])
        #expect(BrowserScreen(state: try #require(view.last)).compose().text.contains("▶ 2 s"))
        clock.advance(by: .seconds(2))
        try await eventually { view.last?.selectedIndex == 1 }
        // The next one took its time to arrive: its interval starts when it shows.
        clock.advance(by: .seconds(3))
        try await show(1)
        await clock.waitForSleeper()
        #expect(clock.deadlines == [clock.now + .seconds(2)])
        clock.advance(by: .seconds(2))
        try await show(2)
        // At the end: it stops there.
        await clock.waitForSleeper()
        clock.advance(by: .seconds(2))
        try await eventually { view.last?.slideshow.status == .off }
        #expect(view.last?.notice?.text == "slideshow ended at the last image")
        #expect(view.last?.selectedIndex == 2)
        try await eventually { clock.deadlines.isEmpty }
        presenter.shutDown()
    }

    @Test func anyKeyPausesItAndTheSlideshowKeyResumesAndStopsIt() async throws {
        let presenter = makePresenter(slideshow: Slideshow(interval: .seconds(2)))
        presenter.start()
        try await show(0)
        #expect(clock.deadlines.isEmpty, "off until asked for")
        presenter.handle(key: .character("S"))
        #expect(view.last?.notice?.text == "slideshow: every 2 s · any key pauses it")
        await clock.waitForSleeper()
        // Another key pauses it, and still does what it does.
        presenter.handle(key: .character("f"))
        #expect(view.last?.slideshow.status == .paused)
        #expect(view.last?.isFullWidth == true)
        #expect(view.last?.notice?.text == "slideshow paused · S resumes")
        try await eventually { clock.deadlines.isEmpty }
        presenter.handle(key: .character("S"))
        #expect(view.last?.slideshow.status == .running)
        await clock.waitForSleeper()
        presenter.handle(key: .character("S"))
        #expect(view.last?.slideshow.status == .off)
        #expect(view.last?.notice?.text == "slideshow stopped")
        try await eventually { clock.deadlines.isEmpty }
        presenter.shutDown()
    }

    @Test func anAnimationPlaysToItsEndBeforeTheNextImage() async throws {
        // Two passes of 600 ms: longer than the interval.
        let presenter = makePresenter(
            decoder: AnimatedStubDecoder(loopCount: 2), slideshow: Slideshow(interval: .milliseconds(500), status: .running))
        presenter.start()
        try await show(0)
        let shownAt = clock.now
        try await eventually { clock.deadlines.contains(shownAt + .milliseconds(1200)) }
        clock.advance(by: .milliseconds(1199))
        #expect(view.last?.selectedIndex == 0)
        clock.advance(by: .milliseconds(1))
        try await eventually { view.last?.selectedIndex == 1 }
        presenter.shutDown()
    }

    @Test func anOrderThatReadsFilesSelectsOnlyOnceTheImagesAreInIt() async throws {
        let keys = FakeSortKeys(
            Dictionary(uniqueKeysWithValues: images.enumerated().map { ($1.urlString, ImageSortKeys(modified: Int64(3 - $0))) }))
        let presenter = makePresenter(slideshow: Slideshow(), ordering: ImageOrdering(order: .mtime), sortKeys: keys)
        presenter.start()
        // Newest last: image2 has the oldest time, so it comes first, and is the first fetched.
        await loader.waitForRequest(images[2].url)
        #expect(loader.calls.map(\.request.url) == [images[2].url])
        #expect(view.last?.images.map(\.name) == ["image2", "image1", "image0"])
        #expect(BrowserScreen(state: try #require(view.last)).compose().text.contains("3 images · by mtime"))
        presenter.shutDown()
    }
}
