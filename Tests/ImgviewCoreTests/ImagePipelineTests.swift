import Foundation
import ImgviewCurl
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// The preview pipeline's stages with a loader and a scheduler held by hand: what is shared,
/// what is kept, what stops when nobody waits.
@Suite("Preview pipeline")
struct ImagePipelineTests {
    let loader = HeldImageLoader()
    let decoder = RowCountingDecoder()
    let scheduler = ManualScheduler()
    let pipeline: ImagePipeline
    let url = URL(string: "http://example.test/a.png")!

    init() {
        pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: decoder, scheduler: scheduler))
    }

    func request(columns: Int = 40, rows: Int = 12, mode: RenderMode = .blocks, url: URL? = nil) -> PreviewRequest {
        PreviewRequest(url: url ?? self.url, options: RenderOptions(columns: columns, rows: rows, mode: mode, colors: .full))
    }

    /// Runs queued work of at least `priority` until `task` answers.
    func finish(_ task: PreviewTask, atLeast priority: WorkPriority = .low) async throws -> PreviewResponse {
        let outcome = Locked<Result<PreviewResponse, any Error>?>(nil)
        Task {
            do {
                let response = try await task.response
                outcome.withLock { $0 = .success(response) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        try await scheduler.run(atLeast: priority) { outcome.withLock { $0 } != nil }
        return try #require(outcome.withLock { $0 }).get()
    }

    @Test func identicalRequestsShareEveryStage() async throws {
        let first = pipeline.previewTask(for: request())
        let second = pipeline.previewTask(for: request())
        await loader.waitForRequest(url)
        loader.release(url, with: .success(stubImage(width: 64, height: 48, grey: 1)))
        let one = try await finish(first)
        let two = try await finish(second)
        #expect(one.preview == two.preview)
        #expect(loader.calls.count == 1)
        #expect(decoder.counts.headers == 1 && decoder.counts.decodes == 1)
    }

    @Test func anotherSizeSharesTheFetchAndRendersFromTheSamePixels() async throws {
        let small = pipeline.previewTask(for: request(columns: 20, rows: 6))
        await loader.waitForRequest(url)
        loader.release(url, with: .success(stubImage(width: 64, height: 48, grey: 1)))
        let first = try await finish(small)
        // Larger box, another mode: the pixels decoded for the first cover it (the stub decodes in full).
        let larger = try await finish(pipeline.previewTask(for: request(columns: 30, rows: 8, mode: .ascii)))
        #expect(first.preview != larger.preview)
        #expect(loader.calls.count == 1, "rendered again from memory: no fetch")
        #expect(decoder.counts.decodes == 1)
        #expect(larger.facts.source == .memory)
    }

    /// Into a pipe an animation's first frame is all that is shown: the decoder is asked for no
    /// more, and a preview that animates later decodes again, once.
    @Test func aPreviewThatDoesNotAnimateDecodesTheFirstFrameOnly() async throws {
        let decoder = FirstFrameCountingDecoder()
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: decoder, scheduler: scheduler))
        var still = request()
        still.options.animates = false
        let task = pipeline.previewTask(for: still)
        await loader.waitForRequest(url)
        loader.release(url, with: .success(stubImage(width: 64, height: 48, grey: 1)))
        #expect(try await finish(task).preview.animation == nil)
        #expect(decoder.requests == [false])
        let animated = try await finish(pipeline.previewTask(for: request()))
        #expect(animated.preview.animation != nil)
        #expect(decoder.requests == [false, true])
        _ = try await finish(pipeline.previewTask(for: still))
        #expect(decoder.requests == [false, true], "every frame covers the first")
    }

    @Test func aFinishedPreviewIsInMemoryOnlyWhileItsBytesAreFresh() async throws {
        let clock = ManualDate()
        let pipeline = ImagePipeline(
            configuration: .init(fetcher: loader, decoder: decoder, scheduler: scheduler, now: { clock.now }))
        let task = pipeline.previewTask(for: request())
        await loader.waitForRequest(url)
        // makeResponse is fresh for an hour from when it was fetched.
        loader.release(url, with: .success(stubImage()), fetchedAt: clock.now)
        _ = try await finish(task)
        #expect(pipeline.cachedPreview(for: request())?.facts.source == .memory)
        clock.advance(by: 3601)
        #expect(pipeline.cachedPreview(for: request()) == nil, "stale: the bytes must be asked for again")
    }

    @Test func cancellingOneOfTwoWaitersKeepsTheWorkAndTheLastStopsIt() async throws {
        let first = pipeline.previewTask(for: request())
        let second = pipeline.previewTask(for: request())
        await loader.waitForRequest(url)
        first.cancel()
        #expect(loader.cancelledURLs.isEmpty, "the other waiter still needs the transfer")
        second.cancel()
        try await eventually { loader.cancelledURLs == [url] }
        await #expect(throws: CancellationError.self) { try await first.response }
        await #expect(throws: CancellationError.self) { try await second.response }
    }

    @Test func aDecodeNobodyWaitsForStopsBetweenRows() async throws {
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: decoder, scheduler: WorkerPool(width: 1)))
        decoder.pause(atRow: 50)
        let task = pipeline.previewTask(for: request())
        await loader.waitForRequest(url)
        loader.release(url, with: .success(stubImage(width: 200, height: 400, grey: 9)))
        await decoder.waitUntilPaused()
        task.cancel()
        decoder.resume()
        try await eventually { decoder.cancelledDecodes == 1 }
        #expect(decoder.rows[9] ?? 0 < 60, "stopped a row or two after the cancellation, not after 400 rows")
        await #expect(throws: CancellationError.self) { try await task.response }
    }

    @Test func queuedWorkFollowsItsTasksPriority() async throws {
        let other = URL(string: "http://example.test/b.png")!
        let background = pipeline.previewTask(for: request(url: other), priority: .high)
        let wanted = pipeline.previewTask(for: request(), priority: .high)
        await loader.waitForRequest(other)
        await loader.waitForRequest(url)
        loader.release(other, with: .success(stubImage(grey: 1)))
        loader.release(url, with: .success(stubImage(grey: 2)))
        await scheduler.waitForWork(count: 2)
        background.priority = .low
        #expect(scheduler.queued == [.high, .low])
        // Lowered, the first task's work waits: the other finishes without it running.
        _ = try await finish(wanted, atLeast: .high)
        #expect(decoder.rows[1] == nil)
        _ = try await finish(background)
        #expect(decoder.rows[1] == 48)
    }

    @Test func bytesTheDecoderRefusesAreDroppedFromTheCaches() async throws {
        let task = pipeline.previewTask(for: request())
        await loader.waitForRequest(url)
        loader.release(url, with: .success(Data("GIF89a not really".utf8)))
        await #expect(throws: ImageDecodingError.self) { try await finish(task) }
        #expect(loader.discardedURLs == [url])
    }

    @Test func factsReadTheHeaderOnly() async throws {
        let facts = Task { try await pipeline.facts(for: ImageRequest(url: url)) }
        await loader.waitForRequest(url)
        loader.release(url, with: .success(stubImage(width: 30, height: 20)))
        try await scheduler.run { decoder.counts.headers == 1 }
        let answer = try await facts.value
        #expect(answer.width == 30 && answer.height == 20 && answer.decodeTime == nil)
        #expect(decoder.counts.decodes == 0)
    }

    @Test func aLocalFilesPreviewIsShownAgainOnlyWhileTheFileIsUnchanged() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.png")
        try stubImage(grey: 1).write(to: file)
        let service = ImageFetcher(configuration: .init(dataLoader: CurlDataLoader()))
        let pipeline = ImagePipeline(configuration: .init(fetcher: service, decoder: decoder, scheduler: WorkerPool(width: 1)))
        let options = request(url: file)
        _ = try await pipeline.preview(for: options)
        #expect(pipeline.cachedPreview(for: options) != nil)
        try stubImage(grey: 250).write(to: file)
        #expect(pipeline.cachedPreview(for: options) == nil, "the file changed: it is read again")
        let again = try await pipeline.preview(for: options)
        #expect(again.facts.source == .file)
    }
}

/// Pictures of a download while it arrives: made when someone looks, replaced by the final
/// preview, never kept as if they were it.
@Suite("Partial previews")
struct PartialPreviewTests {
    let loader = HeldImageLoader()
    let scheduler = ManualScheduler()
    let url = URL(string: "http://example.test/slow.png")!
    let request = PreviewRequest(url: URL(string: "http://example.test/slow.png")!, options: RenderOptions(columns: 20, rows: 8))
    let body = stubImage(width: 40, height: 30, grey: 9) + Data(count: 4000)

    func makePipeline(policy: PartialPreviewPolicy = PartialPreviewPolicy(minimumInterval: .zero, costFactor: 0)) -> ImagePipeline {
        ImagePipeline(
            configuration: .init(fetcher: loader, decoder: TrailingBytesStubDecoder(), scheduler: scheduler, partialPreviews: policy))
    }

    @Test func picturesFollowTheBytesAndTheFinalPreviewReplacesThem() async throws {
        let pipeline = makePipeline()
        let pictures = Locked<[PartialPreview]>([])
        let task = pipeline.previewTask(for: request, partial: { picture in pictures.withLock { $0.append(picture) } })
        await loader.waitForRequest(url)
        loader.feed(url, body.prefix(1000), expected: Int64(body.count))
        try await scheduler.run { pictures.withLock { $0.count } == 1 }
        #expect(pictures.withLock { $0[0].received } == 1000)
        #expect(pictures.withLock { $0[0].expected } == Int64(body.count))
        #expect(pipeline.cachedPreview(for: request) == nil, "a picture of part of the bytes is never the preview")
        loader.feed(url, body[1000..<3000])
        try await scheduler.run { pictures.withLock { $0.count } == 2 }
        #expect(pictures.withLock { $0[0].preview != $0[1].preview }, "it sharpens: a new picture of more bytes")
        loader.release(url, with: .success(body))
        let outcome = Locked<PreviewResponse?>(nil)
        Task {
            let response = try? await task.response
            outcome.withLock { $0 = response }
        }
        try await scheduler.run { outcome.withLock { $0 } != nil }
        let final = try #require(outcome.withLock { $0 })
        #expect(final.preview != pictures.withLock { $0.last?.preview })
        #expect(pipeline.cachedPreview(for: request)?.preview == final.preview)
        #expect(pictures.withLock { $0.count } == 2, "no picture after the final one")
    }

    @Test func aPrefetchMakesNoPictures() async throws {
        let pipeline = makePipeline()
        let pictures = Locked(0)
        let task = pipeline.previewTask(for: request, priority: .low, partial: { _ in pictures.withLock { $0 += 1 } })
        await loader.waitForRequest(url)
        loader.feed(url, body.prefix(2000))
        #expect(scheduler.queued.isEmpty, "nobody looks at a prefetch: no picture is made")
        // Selected: the next bytes bring a picture.
        task.priority = .high
        loader.feed(url, body[2000..<2500])
        try await scheduler.run { pictures.withLock { $0 } == 1 }
        task.cancel()
    }

    @Test func withoutAPolicyThereAreNoPictures() async throws {
        let pipeline = ImagePipeline(
            configuration: .init(fetcher: loader, decoder: TrailingBytesStubDecoder(), scheduler: scheduler, partialPreviews: nil))
        let task = pipeline.previewTask(for: request, partial: { _ in Issue.record("a picture without a policy") })
        await loader.waitForRequest(url)
        loader.feed(url, body.prefix(2000))
        #expect(scheduler.queued.isEmpty)
        task.cancel()
    }

    @Test func thePolicyKeepsPicturesFewAndCheap() {
        let policy = PartialPreviewPolicy(minimumInterval: .milliseconds(250), costFactor: 3)
        let start = ContinuousClock.now
        #expect(policy.nextStart(after: start, cost: .milliseconds(10)) == start + .milliseconds(250), "a few a second at most")
        #expect(policy.nextStart(after: start, cost: .milliseconds(200)) == start + .milliseconds(600), "a quarter of the time")
    }
}

/// Decodes stub images (see `stubImage`) row by row, checking for cancellation between rows as
/// the real decoders do, and counts what it did; can stop at a row until the test lets it go on.
final class RowCountingDecoder: ImageDecoding {
    struct Counts {
        var headers = 0
        var decodes = 0
    }

    private struct State {
        var counts = Counts()
        /// Rows decoded, by the stub image's grey level.
        var rows: [UInt8: Int] = [:]
        var cancelled = 0
        /// Grey levels of the images decoded to the end, in the order they finished.
        var completed: [UInt8] = []
        var pauseRow: Int?
        var paused: CheckedContinuation<Void, Never>?
        var isPaused = false
    }

    private let state = Locked(State())
    private let gate = DispatchSemaphore(value: 0)

    var counts: Counts { state.withLock { $0.counts } }
    var rows: [UInt8: Int] { state.withLock { $0.rows } }
    var cancelledDecodes: Int { state.withLock { $0.cancelled } }
    var completed: [UInt8] { state.withLock { $0.completed } }

    func pause(atRow row: Int) {
        state.withLock { $0.pauseRow = row }
    }

    func waitUntilPaused() async {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Bool in
                if state.isPaused { return true }
                state.paused = continuation
                return false
            }
            if already { continuation.resume() }
        }
    }

    func resume() {
        gate.signal()
    }

    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        state.withLock { $0.counts.headers += 1 }
        return try StubDecoder().inspect(bytes, probe: probe)
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        state.withLock { $0.counts.decodes += 1 }
        let image = try StubDecoder().decode(bytes, header: header, request: request)
        let grey = image.pixels.bytes[0]
        for row in 0..<image.pixels.height {
            if request.cancellation.isCancelled {
                state.withLock { $0.cancelled += 1 }
                throw .cancelled
            }
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>?? in
                state.rows[grey, default: 0] += 1
                guard state.pauseRow == row else { return nil }
                state.pauseRow = nil
                state.isPaused = true
                defer { state.paused = nil }
                return .some(state.paused)
            }
            if let waiter {
                waiter?.resume()
                gate.wait()
            }
        }
        state.withLock { $0.completed.append(grey) }
        return image
    }
}

/// The animated stub (`AnimatedStubDecoder`) as the real decoders honour `DecodeRequest.animates`,
/// remembering what each decode was asked.
final class FirstFrameCountingDecoder: ImageDecoding {
    private let asked = Locked<[Bool]>([])
    /// `DecodeRequest.animates` of each decode, in order.
    var requests: [Bool] { asked.withLock { $0 } }

    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try AnimatedStubDecoder().inspect(bytes, probe: probe)
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        asked.withLock { $0.append(request.animates) }
        var image = try AnimatedStubDecoder().decode(bytes, header: header, request: request)
        if !request.animates {
            image.animation = nil
            image.isFirstFrameOnly = true
        }
        return image
    }
}
