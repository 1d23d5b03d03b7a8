import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline

/// Decodes a stub image (`stubImage`) as a three-frame animation: dark, middle and light grey,
/// shown 100, 200 and 300 ms, played `loopCount` times.
struct AnimatedStubDecoder: ImageDecoding {
    static let delays: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(300)]
    var loopCount = 2

    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        var header = try StubDecoder().inspect(bytes, probe: probe)
        header.format = .gif
        header.animation = AnimationSummary(frameCount: 3, duration: .milliseconds(600), loopCount: loopCount)
        return header
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let still = try StubDecoder().decode(bytes, header: header, request: request)
        let frames = zip([UInt8(20), 128, 235], Self.delays).map { grey, delay in
            AnimationFrame(
                pixels: PixelBuffer(width: still.pixels.width, height: still.pixels.height, filledWith: (grey, grey, grey, 255)),
                delay: delay)
        }
        return DecodedImage(
            header: try inspect(bytes), pixels: frames[0].pixels, animation: Animation(frames: frames, loopCount: loopCount))
    }
}

/// The browser plays an animation by an injected clock: frames change when the clock passes
/// their delays, and nothing waits on the clock while nothing moves (paused, a panel open,
/// another tab, the last pass over).
@MainActor
@Suite("Browser playback")
struct BrowserPlaybackTests {
    let loader = HeldImageLoader()
    let view = SpyBrowserView()
    let clock = ManualPlaybackClock()
    let images = (0..<3).map { AppImage(name: "image\($0)", url: URL(string: "http://example.test/\($0).gif")!) }

    func makePresenter(loopCount: Int = 2) -> BrowserPresenter {
        let pipeline = ImagePipeline(
            configuration: .init(fetcher: loader, decoder: AnimatedStubDecoder(loopCount: loopCount), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(
                pipeline: pipeline, saveFolder: FileManager.default.temporaryDirectory, neighbourhood: 0, clock: clock),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        return presenter
    }

    /// Starts the presenter and shows the first (animated) image on its first frame.
    func started(loopCount: Int = 2) async throws -> BrowserPresenter {
        let presenter = makePresenter(loopCount: loopCount)
        presenter.start()
        await loader.waitForRequest(images[0].url)
        loader.release(images[0].url, with: .success(stubImage(width: 32, height: 24)))
        try await eventually { view.isShowingPreview }
        return presenter
    }

    var shown: ShownImage? {
        if case .loaded(let shown)? = view.last?.phase { shown } else { nil }
    }

    /// Moves the clock on and waits for the frame the presenter shows for it.
    func advance(by duration: Duration, expecting frame: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        clock.advance(by: duration)
        try await eventually({ shown?.frame == frame }, sourceLocation: sourceLocation)
    }

    @Test func framesFollowTheirDelaysAndTheLastPassRestsOnTheLastFrame() async throws {
        let presenter = try await started()
        #expect(shown?.frame == 0)
        #expect(shown?.preview?.animation?.frames.count == 3)
        let grids = try #require(shown?.preview?.animation?.frames.map(\.grid))
        #expect(grids[0] != grids[1] && grids[1] != grids[2] && grids[0] != grids[2])
        await clock.waitForSleeper()
        #expect(clock.deadlines == [.milliseconds(100)])
        clock.advance(by: .milliseconds(99))
        #expect(shown?.frame == 0)
        try await advance(by: .milliseconds(1), expecting: 1)
        #expect(shown?.grid == grids[1])
        #expect(BrowserScreen(state: try #require(view.last)).compose().text.contains("frame   2 of 3"))
        try await advance(by: .milliseconds(200), expecting: 2)
        try await advance(by: .milliseconds(300), expecting: 0)
        // A late wake-up skips to the frame due rather than drifting: 600 + 350 is frame 2 of pass 2.
        try await advance(by: .milliseconds(350), expecting: 2)
        try await advance(by: .milliseconds(250), expecting: 2)
        // Two passes are over: the last frame stays and nothing waits on the clock.
        try await eventually { clock.deadlines.isEmpty }
        clock.advance(by: .seconds(5))
        #expect(shown?.frame == 2)
        _ = presenter
    }

    @Test func spacePausesWithoutATimerAndPlaysOnFromTheSameFrame() async throws {
        let presenter = try await started(loopCount: 0)
        await clock.waitForSleeper()
        try await advance(by: .milliseconds(150), expecting: 1)
        presenter.handle(.togglePause)
        #expect(view.last?.isPaused == true)
        try await eventually { clock.deadlines.isEmpty }
        clock.advance(by: .seconds(10))
        #expect(shown?.frame == 1)
        #expect(BrowserScreen(state: try #require(view.last)).compose().text.contains("2 of 3 · paused"))
        // Playing on: 50 ms of frame 1 were shown before the pause, 250 remain.
        presenter.handle(.togglePause)
        #expect(view.last?.isPaused == false)
        await clock.waitForSleeper()
        #expect(clock.deadlines == [clock.now + .milliseconds(150)])
        try await advance(by: .milliseconds(150), expecting: 2)
    }

    @Test func aPanelOrAnotherTabStopsTheClockAndSpaceReplaysAFinishedAnimation() async throws {
        let presenter = try await started(loopCount: 1)
        await clock.waitForSleeper()
        presenter.handle(.toggleHelp)
        try await eventually { clock.deadlines.isEmpty }
        clock.advance(by: .seconds(1))
        #expect(shown?.frame == 0)
        presenter.handle(.toggleHelp)  // any key closes the panel
        await clock.waitForSleeper()
        try await advance(by: .milliseconds(600), expecting: 2)
        try await eventually { clock.deadlines.isEmpty }
        // Over: space plays it again from the first frame.
        presenter.handle(.togglePause)
        #expect(shown?.frame == 0)
        #expect(view.last?.isPaused == false)
        await clock.waitForSleeper()
        // Another tab: nothing moves while its image loads.
        presenter.handle(.next)
        try await eventually { clock.deadlines.isEmpty }
        #expect(view.last?.isPaused == false)
        presenter.shutDown()
    }
}
