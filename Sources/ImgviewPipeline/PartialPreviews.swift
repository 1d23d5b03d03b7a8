import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A preview of what a download has brought so far: never cached, replaced by the final one.
public struct PartialPreview: Sendable, Equatable {
    public var preview: RenderedPreview
    /// Bytes received when the picture was made, and the total when the server said.
    public var received: Int64
    public var expected: Int64?

    public init(preview: RenderedPreview, received: Int64, expected: Int64?) {
        self.preview = preview
        self.received = received
        self.expected = expected
    }
}

/// How often pictures of an unfinished download are made: a few a second at most, and never
/// more work than the download itself is worth.
public struct PartialPreviewPolicy: Sendable {
    /// The shortest time between two pictures.
    public var minimumInterval: Duration
    /// After a picture that cost `c` to decode and render, the next waits at least `c × costFactor`:
    /// with 3, at most a quarter of the time goes into pictures that will be replaced.
    public var costFactor: Double
    /// Bodies larger than this are not followed (they are kept in memory while they arrive).
    public var bodyLimit: Int

    public init(minimumInterval: Duration = .milliseconds(250), costFactor: Double = 3, bodyLimit: Int = 64 << 20) {
        self.minimumInterval = minimumInterval
        self.costFactor = costFactor
        self.bodyLimit = bodyLimit
    }

    /// When the next picture may start, after one that started at `start` and cost `cost`.
    public func nextStart(after start: ContinuousClock.Instant, cost: Duration) -> ContinuousClock.Instant {
        start + max(minimumInterval, cost * costFactor)
    }
}

/// One download's bytes as they arrive, and the pictures made of them for the tasks that asked.
///
/// Fed by the fetch's body on the transfer's thread; decodes on the pipeline's
/// scheduler, one picture at a time, as often as its policy allows, with a `ProgressiveImageDecoder`
/// that follows the bytes. Closed when the download ends: the final preview takes over.
final class PartialPreviews: Sendable {
    /// Receives pictures; called on a worker thread.
    typealias Handler = @Sendable (PartialPreview) -> Void

    private struct Subscriber {
        var options: RenderOptions
        var handler: Handler
        /// The task's priority now: pictures are made only while a task above low priority waits
        /// (a prefetch is not looked at).
        var priority: @Sendable () -> WorkPriority
    }

    private struct State {
        var body = Data()
        var expected: Int64?
        /// Bytes came out of order, too many, or the decoder gave up: no more pictures.
        var isBroken = false
        var isClosed = false
        var subscribers: [UniqueID: Subscriber] = [:]
        var decoder: (any ProgressiveImageDecoder)?
        var isDecoding = false
        var isTimerSet = false
        /// How much of the body the last picture was made from.
        var pictured = 0
        var notBefore: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    private let policy: PartialPreviewPolicy
    private let decoding: any ImageDecoding
    private let scheduler: any WorkScheduling
    private let maxPixelCount: Int
    private let pngEncoder: (any PNGEncoding)?
    private let cancellation = CancellationFlag()

    init(policy: PartialPreviewPolicy, configuration: ImagePipeline.Configuration) {
        self.policy = policy
        decoding = configuration.decoder
        scheduler = configuration.scheduler
        maxPixelCount = configuration.maxPixelCount
        pngEncoder = configuration.pngEncoder
    }

    /// Takes bytes from the transfer: `offset` is where they start in the body (0 again on a retry).
    func receive(_ offset: Int64, _ bytes: UnsafeRawBufferPointer) {
        state.withLock { state in
            guard !state.isClosed, !state.isBroken else { return }
            if offset == 0, !state.body.isEmpty {
                // A retry starts the body over: start the pictures over with it.
                state.body.removeAll(keepingCapacity: true)
                state.decoder = nil
                state.pictured = 0
            }
            guard offset == Int64(state.body.count), state.body.count + bytes.count <= policy.bodyLimit else {
                state.isBroken = true
                return
            }
            state.body.append(contentsOf: bytes)
        }
        considerPicture()
    }

    /// The total the server announced, for the pictures' progress.
    func expect(_ total: Int64?) {
        state.withLock { $0.expected = total }
    }

    func subscribe(_ id: UniqueID, options: RenderOptions, priority: @escaping @Sendable () -> WorkPriority, handler: @escaping Handler) {
        state.withLock { $0.subscribers[id] = Subscriber(options: options, handler: handler, priority: priority) }
        considerPicture()
    }

    func unsubscribe(_ id: UniqueID) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }

    /// The download ended: no more pictures, and the bytes and decoder are let go.
    func close() {
        cancellation.cancel()
        state.withLock { state in
            state.isClosed = true
            state.body = Data()
            state.decoder = nil
            state.subscribers = [:]
        }
    }

    /// Starts a picture if someone wants one, bytes came since the last, none is being made,
    /// and the policy allows it now; else sets a timer for when it will.
    private func considerPicture() {
        enum Decision {
            case wait
            case timer(Duration)
            case start
        }
        let now = ContinuousClock.now
        let decision = state.withLock { state -> Decision in
            guard !state.isClosed, !state.isBroken, !state.isDecoding, state.body.count > state.pictured,
                state.subscribers.values.contains(where: { $0.priority() > .low })
            else { return .wait }
            if let notBefore = state.notBefore, notBefore > now {
                guard !state.isTimerSet else { return .wait }
                state.isTimerSet = true
                return .timer(notBefore - now)
            }
            state.isDecoding = true
            return .start
        }
        switch decision {
        case .wait:
            return
        case .timer(let delay):
            Task(executorPreference: PreferredExecutor.current) { [weak self] in
                try? await Task.sleep(for: delay)
                self?.state.withLock { $0.isTimerSet = false }
                self?.considerPicture()
            }
        case .start:
            _ = scheduler.schedule(priority: .high) { [self] in makePicture() }
        }
    }

    /// Decodes what has arrived and hands each subscriber its rendering; runs on the scheduler.
    private func makePicture() {
        let started = ContinuousClock.now
        let (body, expected, subscribers, existing) = state.withLock { state in
            (state.body, state.expected, Array(state.subscribers.values), state.decoder)
        }
        var decoder = existing
        var outcome: Result<DecodedImage?, ImageDecodingError> = .success(nil)
        if decoder == nil, let format = ImageFormat.sniff(body), let first = subscribers.first {
            let maxPixelCount = maxPixelCount
            let cancellation = cancellation
            decoder = decoding.makeProgressiveDecoder(for: format) { header in
                DecodeRequest(
                    minimumSize: DecodePolicy.minimumSize(of: header, for: first.options), maxPixelCount: maxPixelCount,
                    cancellation: cancellation)
            }
            if decoder == nil { outcome = .failure(.unsupportedFormat(format)) }
        }
        if let decoder, !cancellation.isCancelled {
            do {
                outcome = .success(try decoder.update(with: body))
            } catch {
                outcome = .failure(error)
            }
        }
        if case .success(let image?) = outcome, !cancellation.isCancelled {
            for subscriber in subscribers {
                guard let preview = try? RenderedPreview.rendering(image, options: subscriber.options, pngEncoder: pngEncoder).preview
                else {
                    continue
                }
                subscriber.handler(PartialPreview(preview: preview, received: Int64(body.count), expected: expected))
            }
        }
        let cost = started.duration(to: .now)
        state.withLock { state in
            state.isDecoding = false
            guard !state.isClosed else { return }
            if state.decoder == nil { state.decoder = decoder }
            state.pictured = body.count
            state.notBefore = policy.nextStart(after: started, cost: cost)
            // A format that shows nothing early, or bytes the decoder refuses: the final decode will say.
            if case .failure = outcome { state.isBroken = true }
        }
        considerPicture()
    }
}
