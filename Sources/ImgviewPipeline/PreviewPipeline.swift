import ImgviewFetching
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one way from a URL to a preview: bytes → header → decoded image → rendered preview.
///
/// Every consumer asks here — the browser, `show`, `info`, `demo`, prefetching — and never puts
/// the stages together itself. Each stage is shared by everyone who asks for the same thing
/// (`SharedWork`) and keeps what it made in a memory cache of its own (`PreviewMemory`):
/// - bytes by request, from the image service (its memory and disk caches, then the network);
/// - the header by URL and content hash;
/// - decoded pixels by URL, content hash and decode size (`DecodePolicy` says which size);
/// - the rendered preview by URL, content hash and render options.
/// Headers, decodes and renders run on the configured `WorkScheduling` (a bounded pool of
/// threads), most urgent first; a stage nobody waits for any more is given up, and a decode
/// stops between rows.
public actor PreviewPipeline {
    public nonisolated let configuration: Configuration
    nonisolated let memory: PreviewMemory
    private let inFlight = StageTables()
    /// What each running task waits on now, so that its priority can follow it there.
    private var waiting: [UUID: any StageWaiting] = [:]
    /// The fetch each started task reserved a place in, until its run takes it.
    private var reservations: [UUID: Reservation] = [:]
    /// Works a cancelled task is to leave once its `.depart` command comes up in order.
    private var departures: [UUID: any StageWaiting] = [:]
    /// Tasks under way at more than low priority: while there are any, low-priority work waits.
    /// Changed by the tasks themselves as their priority changes, so it is right at once.
    private nonisolated let foreground = Locked<Set<UUID>>([])
    /// Low-priority work waiting for the foreground to finish.
    private var parked: [() -> Void] = []
    /// Starts, priority changes and cancellations of preview tasks, in the order they were made.
    private nonisolated let commands: AsyncStream<Command>.Continuation

    public init(configuration: Configuration) {
        self.configuration = configuration
        memory = PreviewMemory(configuration: configuration)
        let (stream, continuation) = AsyncStream.makeStream(of: Command.self)
        commands = continuation
        Task { [weak self] in
            for await command in stream {
                guard let self else { return }
                await self.carryOut(command)
            }
        }
    }

    deinit {
        commands.finish()
    }

    // MARK: Entry points

    /// Starts making the preview for `request` and returns at once; the task can be moved up or
    /// down in priority, or cancelled. `partial` receives pictures of the image while its bytes
    /// arrive (on a worker thread), when the configuration's policy makes them.
    public nonisolated func previewTask(
        for request: PreviewRequest, priority: WorkPriority = .high, progress: ImageService.Progress? = nil,
        partial: (@Sendable (PartialPreview) -> Void)? = nil
    ) -> PreviewTask {
        let task = PreviewTask(request: request, priority: priority, pipeline: self, partial: partial)
        task.start(progress: progress)
        return task
    }

    /// The preview for `request`; cancelling the calling task gives it up.
    public func preview(for request: PreviewRequest, progress: ImageService.Progress? = nil) async throws -> PreviewResponse {
        try await run(request, task: UUID(), priority: Locked(.high), progress: progress, fetch: nil)
    }

    /// What the image at `request.url` is, from its header: the pixels are not decoded.
    public func facts(for request: ImageRequest, progress: ImageService.Progress? = nil) async throws -> ImageFacts {
        let id = UUID()
        let priority = Locked(WorkPriority.high)
        let response = try await fetch(request, task: id, priority: priority, progress: progress)
        let content = ContentKey(url: request.url, sha256: response.entry.sha256)
        let header = try await header(of: content, in: response, task: id, priority: priority)
        return ImageFacts(
            url: request.url, header: header, entry: response.entry, source: response.source, fetchTime: response.elapsed,
            decodeTime: nil, cacheState: CacheStatus(isCached: response.isCached, entry: response.entry, now: configuration.now()))
    }

    /// The image's bytes as the image service delivers them (for saving a copy).
    public func bytes(for request: ImageRequest) async throws -> ImageResponse {
        try await fetch(request, task: UUID(), priority: Locked(.high), progress: nil)
    }

    /// The preview for `request` if the pipeline has it in memory and may use it without asking
    /// anyone: the bytes it was made from are still fresh (or the file unchanged, or offline).
    ///
    /// Synchronous, so that the browser draws a tab it has seen in the same turn as the key press.
    public nonisolated func cachedPreview(for request: PreviewRequest) -> PreviewResponse? {
        guard request.cachePolicy == .useCache, let known = memory.usableKnown(request.url) else { return nil }
        let content = ContentKey(url: request.url, sha256: known.entry.sha256)
        guard let header = memory.headers.value(for: content),
            let cached = memory.previews.value(for: RenderKey(content: content, options: request.options))
        else { return nil }
        let facts = ImageFacts(
            url: request.url, header: header, entry: known.entry, source: .memory, fetchTime: .zero, decodeTime: cached.decodeTime,
            cacheState: CacheStatus(isCached: known.isCached, entry: known.entry, now: configuration.now()))
        return PreviewResponse(facts: facts, preview: cached.preview, warning: cached.warning)
    }

    /// The facts of the image at `request.url` if the pipeline knows them and may use them
    /// without asking anyone (as for `cachedPreview`): what the browser shows while a preview renders.
    public nonisolated func cachedFacts(for request: ImageRequest) -> ImageFacts? {
        guard request.cachePolicy == .useCache, let known = memory.usableKnown(request.url),
            let header = memory.headers.value(for: ContentKey(url: request.url, sha256: known.entry.sha256))
        else { return nil }
        return ImageFacts(
            url: request.url, header: header, entry: known.entry, source: .memory, fetchTime: .zero, decodeTime: nil,
            cacheState: CacheStatus(isCached: known.isCached, entry: known.entry, now: configuration.now()))
    }

    /// Returns once every start, priority change and cancellation sent before has been carried
    /// out: after it, a cancelled task's work is given up and a started one has its place.
    public func synchronize() async {
        await withCheckedContinuation { continuation in send(.marker(continuation)) }
    }

    // MARK: Commands

    /// What a `PreviewTask` asks of the pipeline. They are carried out in the order they were
    /// sent, so a consumer that starts a new request and then cancels an old one never gives up
    /// work the new one was about to share.
    enum Command: Sendable {
        case start(PreviewTask)
        case reprioritize(PreviewTask)
        case cancel(PreviewTask)
        /// A task found itself cancelled while it waited, or as it was about to wait.
        case depart(UUID)
        /// The last task at more than low priority went: parked work may go ahead.
        case foregroundEmptied
        case marker(CheckedContinuation<Void, Never>)
    }

    /// The fetch a started task will join, handed from its start to its run.
    private enum Reservation {
        /// Reserved (nil: the preview was in memory, nothing to fetch).
        case made(SharedWork<ImageResponse>?)
        /// The run got here first and waits for the start.
        case awaited(CheckedContinuation<Void, Never>)
    }

    nonisolated func send(_ command: Command) {
        commands.yield(command)
    }

    private func carryOut(_ command: Command) {
        switch command {
        case .start(let task):
            // Reserve a place in the fetch at once: a later cancellation of an older task cannot give it up.
            var work: SharedWork<ImageResponse>?
            if cachedPreview(for: task.request) == nil, inMemory(task.request) == nil {
                let request = task.request.imageRequest
                let fetch = inFlight.fetches[request] ?? startFetch(request)
                fetch.reserve(task.id, priority: task.priority)
                if let partial = task.partial {
                    fetch.partials?.subscribe(
                        task.id, options: task.request.options, priority: task.priorityBox, handler: partial)
                }
                waiting[task.id] = fetch
                work = fetch
            }
            let awaited = reservations.updateValue(.made(work), forKey: task.id)
            if case .awaited(let continuation) = awaited { continuation.resume() }
        case .reprioritize(let task):
            waiting[task.id]?.setPriority(task.priority, for: task.id)
        case .foregroundEmptied:
            releaseParked()
        case .cancel(let task):
            leave(task.id)
        case .depart(let id):
            if let work = departures.removeValue(forKey: id) {
                work.leave(id)
            } else {
                leave(id)
            }
        case .marker(let continuation):
            continuation.resume()
        }
    }

    /// The fetch `id` reserved when its start was carried out.
    private func reservation(for id: UUID) async -> SharedWork<ImageResponse>? {
        if reservations[id] == nil {
            await withCheckedContinuation { continuation in reservations[id] = .awaited(continuation) }
        }
        guard case .made(let work) = reservations.removeValue(forKey: id) else { return nil }
        return work
    }

    // MARK: Making a preview

    /// Makes the preview for a task started with `previewTask`.
    func run(_ task: PreviewTask, progress: ImageService.Progress?) async throws -> PreviewResponse {
        let reserved = await reservation(for: task.id)
        defer { release(task.id) }
        return try await run(task.request, task: task.id, priority: task.priorityBox, progress: progress, fetch: reserved)
    }

    func run(
        _ request: PreviewRequest, task id: UUID, priority: Locked<WorkPriority>, progress: ImageService.Progress?,
        fetch reserved: SharedWork<ImageResponse>? = nil
    ) async throws -> PreviewResponse {
        setForeground(id, priority.withLock { $0 } > .low)
        defer { setForeground(id, false) }
        if let cached = cachedPreview(for: request) { return cached }
        if let (facts, decoded) = inMemory(request) {
            // A new size or mode of an image decoded before: render it again, no bytes needed.
            leave(id)
            let rendered = try await render(
                RenderKey(content: ContentKey(url: request.url, sha256: facts.sha256), options: request.options), from: decoded,
                task: id, priority: priority)
            var shown = facts
            shown.decodeTime = rendered.decodeTime
            return PreviewResponse(facts: shown, preview: rendered.preview, warning: rendered.warning)
        }
        let fetch = reserved ?? inFlight.fetches[request.imageRequest] ?? startFetch(request.imageRequest)
        let response = try await join(fetch, task: id, priority: priority, progress: progress)
        let content = ContentKey(url: request.url, sha256: response.entry.sha256)
        let header = try await header(of: content, in: response, task: id, priority: priority)
        let key = RenderKey(content: content, options: request.options)
        let rendered: CachedPreview
        if let cached = memory.previews.value(for: key) {
            rendered = cached
        } else {
            let decoded = try await decode(content, header: header, for: request.options, in: response, task: id, priority: priority)
            rendered = try await render(key, from: decoded, task: id, priority: priority)
        }
        let facts = ImageFacts(
            url: request.url, header: header, entry: response.entry, source: response.source, fetchTime: response.elapsed,
            decodeTime: rendered.decodeTime,
            cacheState: CacheStatus(isCached: response.isCached, entry: response.entry, now: configuration.now()))
        return PreviewResponse(facts: facts, preview: rendered.preview, warning: rendered.warning)
    }

    /// The facts and decoded pixels that `request`'s preview can be rendered from without
    /// fetching: the bytes are usable (as for `cachedPreview`) and the pixels cover the box.
    private nonisolated func inMemory(_ request: PreviewRequest) -> (ImageFacts, DecodedEntry)? {
        guard let facts = cachedFacts(for: request.imageRequest),
            let decoded = memory.decoded.value(for: ContentKey(url: request.url, sha256: facts.sha256))
        else { return nil }
        let minimum = DecodePolicy.minimumSize(of: decoded.image.header, for: request.options)
        return DecodePolicy.covers(decoded.image, minimum) ? (facts, decoded) : nil
    }

    // MARK: Stages

    private func fetch(
        _ request: ImageRequest, task id: UUID, priority: Locked<WorkPriority>, progress: ImageService.Progress?
    ) async throws -> ImageResponse {
        let work = inFlight.fetches[request] ?? startFetch(request)
        return try await join(work, task: id, priority: priority, progress: progress)
    }

    private func startFetch(_ request: ImageRequest) -> SharedWork<ImageResponse> {
        let work = SharedWork<ImageResponse>()
        inFlight.fetches[request] = work
        work.detach = { [inFlight] in
            if inFlight.fetches[request] === work { inFlight.fetches[request] = nil }
        }
        let loader = configuration.loader
        let fanout = work.progress
        // Only network bodies arrive slowly enough to be worth pictures of their start.
        let partials =
            request.url.isFileURL ? nil : configuration.partialPreviews.map { PartialPreviews(policy: $0, configuration: configuration) }
        work.partials = partials
        work.task = Task {
            // A file's identity is taken before it is read: a change during the read shows as a change later.
            let stamp = request.url.isFileURL ? FileStamp(of: request.url) : nil
            let result: Result<ImageResponse, any Error>
            do {
                let progress: ImageService.Progress = { received, expected in
                    partials?.expect(expected)
                    fanout.report(received, expected)
                }
                var body: ImageService.BodyTap?
                if let partials { body = { offset, bytes in partials.receive(offset, bytes) } }
                result = .success(try await loader.image(for: request, progress: progress, body: body))
            } catch {
                result = .failure(error)
            }
            if case .success(let response) = result {
                memory.known.set(
                    KnownImage(entry: response.entry, isCached: response.isCached, fileStamp: stamp), for: request.url, cost: 1)
            }
            work.finish(with: result)
        }
        return work
    }

    private func header(
        of content: ContentKey, in response: ImageResponse, task id: UUID, priority: Locked<WorkPriority>
    ) async throws -> ImageHeader {
        if let header = memory.headers.value(for: content) { return header }
        let decoder = configuration.decoder
        let work =
            inFlight.headers[content]
            ?? startScheduled(\.headers, key: content) { _ in
                try decoder.inspect(try response.data())
            } onSuccess: { [memory] header in
                memory.headers.set(header, for: content, cost: 1)
            }
        return try await refusingBadImages(content.url) { try await join(work, task: id, priority: priority) }
    }

    private func decode(
        _ content: ContentKey, header: ImageHeader, for options: RenderOptions, in response: ImageResponse, task id: UUID,
        priority: Locked<WorkPriority>
    ) async throws -> DecodedEntry {
        let minimum = DecodePolicy.minimumSize(of: header, for: options)
        if let cached = memory.decoded.value(for: content), DecodePolicy.covers(cached.image, minimum) { return cached }
        let key = DecodeKey(content: content, width: minimum.width, height: minimum.height)
        let decoder = configuration.decoder
        let maxPixelCount = configuration.maxPixelCount
        let work =
            inFlight.decodes[key]
            ?? startScheduled(\.decodes, key: key) { cancellation in
                let started = ContinuousClock.now
                let request = DecodeRequest(minimumSize: minimum, maxPixelCount: maxPixelCount, cancellation: cancellation)
                let image = try decoder.decode(try response.data(), header: header, request: request)
                return DecodedEntry(image: image, decodeTime: started.duration(to: .now))
            } onSuccess: { [memory] entry in
                memory.keepDecoded(entry, for: content)
            }
        return try await refusingBadImages(content.url) { try await join(work, task: id, priority: priority) }
    }

    private func render(
        _ key: RenderKey, from decoded: DecodedEntry, task id: UUID, priority: Locked<WorkPriority>
    ) async throws -> CachedPreview {
        let work =
            inFlight.renders[key]
            ?? startScheduled(\.renders, key: key) { [configuration] cancellation in
                if cancellation.isCancelled { throw CancellationError() }
                let (preview, warning) = try RenderedPreview.rendering(
                    decoded.image, options: key.options, pngEncoder: configuration.pngEncoder,
                    animationCostLimit: configuration.animationCostLimit, cancellation: cancellation)
                return CachedPreview(preview: preview, warning: warning, decodeTime: decoded.decodeTime)
            } onSuccess: { [memory] cached in
                memory.previews.set(cached, for: key, cost: cached.preview.cost)
            }
        return try await join(work, task: id, priority: priority)
    }

    /// Runs `body`; bytes the decoder refuses (corrupt, truncated before any pixel, too large) are
    /// dropped from the caches on the way out, so the next attempt fetches them again. A format
    /// imgview only recognises is good bytes, and stays.
    private func refusingBadImages<T>(_ url: URL, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ImageDecodingError where error.condemnsTheBytes {
            memory.known.removeValue(for: url)
            if !url.isFileURL { await configuration.loader.discardCachedImage(for: url) }
            throw error
        }
    }

    // MARK: Sharing work

    /// Starts `body` on the scheduler as the shared work for `key` in `table`.
    private func startScheduled<Key: Hashable, Value: Sendable>(
        _ table: ReferenceWritableKeyPath<StageTables, [Key: SharedWork<Value>]>, key: Key,
        _ body: @escaping @Sendable (CancellationFlag) throws -> Value,
        onSuccess: @escaping @Sendable (Value) -> Void
    ) -> SharedWork<Value> {
        let work = SharedWork<Value>()
        inFlight[keyPath: table][key] = work
        work.detach = { [inFlight] in
            if inFlight[keyPath: table][key] === work { inFlight[keyPath: table][key] = nil }
        }
        // Capturing `self` makes the task run on this actor, where `work` lives.
        work.task = Task { [self] in
            let scheduler = configuration.scheduler
            let result: Result<Value, any Error>
            do {
                let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    // Given up before it was queued: nothing to run.
                    guard !work.cancellation.isCancelled else {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    let cancellation = work.cancellation
                    work.withdrawn = { continuation.resume(throwing: CancellationError()) }
                    let enqueue = {
                        work.ticket = scheduler.schedule(priority: work.priority) {
                            continuation.resume(with: Result { try body(cancellation) })
                        }
                    }
                    // Prefetching never competes with what the user waits for: it waits until that is done.
                    if work.priority == .low, !foreground.withLock({ $0.isEmpty }) {
                        work.park(enqueue)
                        parked.append { work.releaseParked() }
                    } else {
                        enqueue()
                    }
                }
                onSuccess(value)
                result = .success(value)
            } catch {
                result = .failure(error)
            }
            work.ticket = nil
            work.finish(with: result)
        }
        return work
    }

    /// Waits for `work` as task `id`, at the task's priority; leaving (the task is cancelled)
    /// answers at once with `CancellationError` and gives the work up if nobody else waits.
    private func join<Value: Sendable>(
        _ work: SharedWork<Value>, task id: UUID, priority: Locked<WorkPriority>, progress: ImageService.Progress? = nil
    ) async throws -> Value {
        defer { waiting[id] = nil }
        // Leaving goes through the command stream, after every start sent before the cancellation:
        // a consumer that starts a new task and then cancels an old one must not give up the work
        // the new one is about to share, however late the old one's run notices.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                guard !Task.isCancelled else {
                    // The place this task reserved is given back in order.
                    departures[id] = work
                    send(.depart(id))
                    continuation.resume(throwing: CancellationError())
                    return
                }
                work.add(id, continuation: continuation, priority: priority.withLock { $0 }, progress: progress)
                waiting[id] = work
            }
        } onCancel: {
            send(.depart(id))
        }
    }

    private func leave(_ id: UUID) {
        waiting.removeValue(forKey: id)?.leave(id)
    }

    /// A finished task's reservation, if it never joined (its preview was found in memory).
    private func release(_ id: UUID) {
        leave(id)
    }

    /// Counts task `id` in or out of the foreground; once none is left, low-priority work goes ahead.
    nonisolated func setForeground(_ id: UUID, _ isForeground: Bool) {
        let emptied = foreground.withLock { tasks -> Bool in
            if isForeground {
                tasks.insert(id)
                return false
            }
            return tasks.remove(id) != nil && tasks.isEmpty
        }
        if emptied { send(.foregroundEmptied) }
    }

    private func releaseParked() {
        guard foreground.withLock({ $0.isEmpty }) else { return }
        let waiting = parked
        parked = []
        for enqueue in waiting { enqueue() }
    }
}

/// The works under way, one table per stage; owned by the pipeline's actor.
final class StageTables {
    var fetches: [ImageRequest: SharedWork<ImageResponse>] = [:]
    var headers: [ContentKey: SharedWork<ImageHeader>] = [:]
    var decodes: [DecodeKey: SharedWork<DecodedEntry>] = [:]
    var renders: [RenderKey: SharedWork<CachedPreview>] = [:]
}
