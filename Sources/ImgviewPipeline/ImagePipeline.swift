import ImgviewFetching
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one road from a URL to a preview: fetch → header → decode → render.
///
/// Every consumer asks here — the browser, `show`, `info`, `get`, `demo`, prefetching — and never
/// puts the stages together itself. Each stage is a table of the works under way (`StageTable`),
/// shared by everyone who asks for the same thing, and keeps what it made in memory
/// (`PipelineMemory`):
/// - bytes by request, from the fetcher (disk cache, then the network); the only table of
///   fetches under way, with their progress and bodies fanned out to whoever asked;
/// - the header by URL and content hash;
/// - decoded pixels by URL, content hash and decode size (`DecodePolicy` says which size);
/// - the rendered preview by URL, content hash and render options.
/// Headers, decodes and renders run on the configured `WorkScheduling` (a bounded pool of
/// threads), most urgent first; a work nobody waits for any more is given up, and a decode stops
/// between rows. Joining a work is synchronous, so what a consumer does takes effect in the order
/// it does it.
public final class ImagePipeline: Sendable {
    public let configuration: Configuration
    let memory: PipelineMemory
    let foreground: ForegroundTasks
    let fetches = StageTable<ImageRequest, ImageResponse>()
    private let headers = StageTable<ContentKey, ImageHeader>()
    private let decodes = StageTable<DecodeKey, DecodedEntry>()
    private let renders = StageTable<RenderKey, CachedPreview>()
    /// Lasting thumbnails of local files being looked up (`ImagePipeline+LastingThumbnails`).
    let lookups = StageTable<LastingKey, LastingThumbnail?>()
    /// Thumbnails queued to be written, and their work (raised when a command waits for them).
    let thumbnailWrites = PendingCount()
    let thumbnailTickets = Locked<[WorkTicket]>([])
    /// Every fetch's task, until it has ended: cancelled ones still clean up after themselves.
    let transfers = Locked<[UniqueID: SharedWork<ImageResponse>]>([:])

    public init(configuration: Configuration) {
        self.configuration = configuration
        memory = PipelineMemory(configuration: configuration)
        foreground = ForegroundTasks(scheduler: configuration.scheduler)
    }

    // MARK: Entry points

    /// Starts making the preview for `request` and returns at once; the task can be moved up or
    /// down in priority, or cancelled. `partial` receives pictures of the image while its bytes
    /// arrive (on a worker thread), when the configuration's policy makes them.
    public func previewTask(
        for request: PreviewRequest, priority: WorkPriority = .high, progress: TransferProgress? = nil,
        partial: (@Sendable (PartialPreview) -> Void)? = nil
    ) -> PreviewTask {
        let task = PreviewTask(request: request, priority: priority, pipeline: self, partial: partial)
        task.start(progress: progress)
        return task
    }

    /// The preview for `request`; cancelling the calling task gives it up.
    public func preview(for request: PreviewRequest, progress: TransferProgress? = nil) async throws -> PreviewResponse {
        let task = previewTask(for: request, progress: progress)
        return try await withTaskCancellationHandler {
            try await task.response
        } onCancel: {
            task.cancel()
        }
    }

    /// What the image at `request.url` is, from its header: the pixels are not decoded.
    public func facts(for request: ImageRequest, progress: TransferProgress? = nil) async throws -> ImageFacts {
        try await foreground.during {
            let response = try await bytes(for: request, progress: progress)
            let content = ContentKey(url: request.url, entry: response.entry, fileStamp: response.fileStamp)
            let waiter = WorkWaiter(priority: .high)
            let header = try await withTaskCancellationHandler {
                try await self.header(of: content, in: response, waiter: waiter)
            } onCancel: {
                waiter.cancel()
            }
            var facts = ImageFacts(
                url: request.url, header: header, entry: response.entry, source: response.source, fetchTime: response.elapsed,
                decodeTime: nil, cacheState: cacheStatus(isCached: response.isCached, entry: response.entry))
            facts.damage = Self.damage(of: response, format: header.format)
            facts.camera = response.body.camera
            return facts
        }
    }

    /// What is wrong with the bytes as a whole, found by walking the format's structure to its
    /// end (segments, chunks, blocks, boxes; no pixels are decoded); nil when it ends where it
    /// says, or the format does not say where it ends (TIFF, SVG, a bare JPEG XL codestream).
    static func damage(of response: ImageResponse, format: ImageFormat) -> String? {
        guard response.body.probe(through: .whole)?.completeness == .truncated else { return nil }
        return "truncated: the file ends inside its \(format.displayName) structure, so only part of the image is there"
    }

    /// The image's bytes (for saving a copy); `body` sees them as they arrive when they come from
    /// a transfer this request starts (one that joins a transfer under way sees only what is
    /// still to come).
    public func bytes(for request: ImageRequest, progress: TransferProgress? = nil, body: BodyTap? = nil) async throws -> ImageResponse {
        try await foreground.during {
            let started = ContinuousClock.now
            if let remembered = remembered(request) { return remembered }
            let waiter = WorkWaiter(priority: .high)
            let response = try await withTaskCancellationHandler {
                try await fetch(request, waiter: waiter, progress: progress, body: body)
            } onCancel: {
                waiter.cancel()
            }
            return response.withElapsed(started.duration(to: .now))
        }
    }

    /// The preview for `request` if the pipeline has it in memory and may use it without asking
    /// anyone: the bytes it was made from are still fresh (or the file unchanged, or offline).
    ///
    /// Synchronous, so that the browser draws a tab it has seen in the same turn as the key press.
    public func cachedPreview(for request: PreviewRequest) -> PreviewResponse? {
        guard request.cachePolicy == .useCache, let known = memory.usable(request.url, needsDigest: request.imageRequest.needsDigest)
        else { return cachedLastingPreview(for: request) }
        let content = known.content(request.url)
        guard let header = memory.headers.value(for: content),
            let cached = memory.previews.value(for: RenderKey(content: content, options: request.options))
        else { return cachedLastingPreview(for: request) }
        let facts = ImageFacts(
            url: request.url, header: header, entry: known.entry, source: .memory, fetchTime: .zero, decodeTime: cached.decodeTime,
            cacheState: cacheStatus(isCached: known.isCached, entry: known.entry))
        return PreviewResponse(facts: facts, preview: cached.preview, warning: cached.warning)
    }

    /// The facts of the image at `request.url` if the pipeline knows them and may use them
    /// without asking anyone (as for `cachedPreview`): what the browser shows while a preview renders.
    public func cachedFacts(for request: ImageRequest) -> ImageFacts? {
        guard request.cachePolicy == .useCache, let known = memory.usable(request.url, needsDigest: request.needsDigest),
            let header = memory.headers.value(for: known.content(request.url))
        else { return nil }
        return ImageFacts(
            url: request.url, header: header, entry: known.entry, source: .memory, fetchTime: .zero, decodeTime: nil,
            cacheState: cacheStatus(isCached: known.isCached, entry: known.entry))
    }

    /// Forgets what is known about `url`'s bytes, so the next request asks the fetcher again: for
    /// a cache entry the user removed.
    public func forget(_ url: URL) {
        memory.images.removeValue(for: url)
    }

    /// How many fetches are under way.
    public var activeFetches: Int { fetches.all.count }

    /// Cancels every fetch and returns once each has cleaned up after itself.
    ///
    /// A waiter that cancels gets its answer at once, while its transfer winds down on its own; a
    /// process about to exit (on Ctrl-C, say) calls this so no temporary file outlives it.
    public func cancelAll() async {
        for work in fetches.all { work.abandon() }
        for work in transfers.withLock({ Array($0.values) }) { await work.settle() }
    }

    // MARK: Making a preview

    /// Takes `task`'s place in the fetch its preview needs, unless memory already holds enough
    /// to make the preview; called as the task is made.
    func reserveFetch(for task: PreviewTask, progress: @escaping TransferProgress) -> SharedWork<ImageResponse>? {
        let request = task.request
        // A thumbnail of a local file looks for its lasting thumbnail first, and fetches only without one.
        guard cachedPreview(for: request) == nil, inMemory(request) == nil, remembered(request.imageRequest) == nil,
            lastingKey(for: request) == nil, let (work, isNew) = join(request.imageRequest, waiter: task.waiter, progress: progress)
        else { return nil }
        if isNew { startFetch(work, for: request.imageRequest) }
        if let partial = task.partial, let partials = work.partials {
            let waiter = task.waiter
            partials.subscribe(task.id, options: request.options, priority: { waiter.priority }, handler: partial)
        }
        return work
    }

    /// Makes the preview for a task started with `previewTask`, from the fetch it reserved.
    func run(_ task: PreviewTask, fetch reserved: SharedWork<ImageResponse>?) async throws -> PreviewResponse {
        let request = task.request
        let waiter = task.waiter
        if let cached = cachedPreview(for: request) { return cached }
        if let (facts, content, decoded) = inMemory(request) {
            // A new size or mode of an image decoded before: render it again, no bytes needed.
            let rendered = try await render(RenderKey(content: content, options: request.options), from: decoded, waiter: waiter)
            var shown = facts
            shown.decodeTime = rendered.decodeTime
            return PreviewResponse(facts: shown, preview: rendered.preview, warning: rendered.warning)
        }
        if let lasting = try await lastingPreview(for: request, waiter: waiter) { return lasting }
        let started = ContinuousClock.now
        let response: ImageResponse
        if let reserved {
            defer { reserved.partials?.unsubscribe(task.id) }
            response = try await waiter.wait(for: reserved).withElapsed(started.duration(to: .now))
        } else {
            response = try await fetch(request.imageRequest, waiter: waiter).withElapsed(started.duration(to: .now))
        }
        let content = ContentKey(url: request.url, entry: response.entry, fileStamp: response.fileStamp)
        let thumbnails = thumbnailStore(for: request)
        if let thumbnails, request.cachePolicy != .reload, let reason = thumbnails.failure(ofFile: request.url.path) {
            throw ImageDecodingError.failedBefore(reason: reason)
        }
        let header: ImageHeader
        let key = RenderKey(content: content, options: request.options)
        let rendered: CachedPreview
        do {
            header = try await self.header(of: content, in: response, waiter: waiter)
            if let cached = memory.previews.value(for: key) {
                rendered = cached
            } else {
                let decoded = try await decode(
                    content, header: header, for: request.options, thumbnail: request.thumbnail,
                    forEveryMode: request.modeCanChange, in: response, waiter: waiter)
                rendered = try await render(key, from: decoded, waiter: waiter)
            }
        } catch let error as ImageDecodingError where thumbnails != nil && error.condemnsTheBytes {
            // Damage is the file's; a size over the limit is this run's, and another may allow it.
            switch error {
            case .tooLarge, .tooLargeToDecode: break
            default: thumbnails?.storeFailure(ofFile: request.url.path, reason: error.message)
            }
            throw error
        }
        let facts = ImageFacts(
            url: request.url, header: header, entry: response.entry, source: response.source, fetchTime: response.elapsed,
            decodeTime: rendered.decodeTime, cacheState: cacheStatus(isCached: response.isCached, entry: response.entry))
        return PreviewResponse(facts: facts, preview: rendered.preview, warning: rendered.warning)
    }

    /// The facts and decoded pixels that `request`'s preview can be rendered from without
    /// fetching: the bytes are usable (as for `cachedPreview`) and the pixels cover the box.
    private func inMemory(_ request: PreviewRequest) -> (ImageFacts, ContentKey, DecodedEntry)? {
        guard let facts = cachedFacts(for: request.imageRequest),
            let content = memory.usable(request.url, needsDigest: request.imageRequest.needsDigest)?.content(request.url),
            let decoded = memory.decoded.value(for: content)
        else { return nil }
        let minimum = DecodePolicy.minimumSize(
            of: decoded.image.header, for: request.options, thumbnail: request.thumbnail, forEveryMode: request.modeCanChange)
        return DecodePolicy.covers(decoded.image, minimum, page: request.options.page, animates: request.options.animates)
            ? (facts, content, decoded) : nil
    }

    private func cacheStatus(isCached: Bool, entry: CacheEntry) -> CacheStatus {
        CacheStatus(isCached: isCached, entry: entry, now: configuration.now())
    }

    // MARK: Stages

    private func header(of content: ContentKey, in response: ImageResponse, waiter: WorkWaiter) async throws -> ImageHeader {
        if let header = memory.headers.value(for: content) { return header }
        let decoder = configuration.decoder
        let inspect: @Sendable (CancellationFlag) throws -> ImageHeader = { _ in
            try response.withDecoderBytes { bytes, _ in try decoder.inspect(bytes, probe: response.probe) }
        }
        let store: @Sendable (ImageHeader) -> Void = { [memory] header in memory.headers.set(header, for: content, cost: 1) }
        return try await refusingBadImages(content.url) {
            // A header that is the probe's is read here; one that opens a library waits for a worker.
            guard !decoder.inspectsHeadersOnly(response.probe.format) else {
                let header = try inspect(CancellationFlag())
                store(header)
                return header
            }
            return try await run(headers, content, waiter: waiter, inspect, stored: store)
        }
    }

    private func decode(
        _ content: ContentKey, header: ImageHeader, for options: RenderOptions, thumbnail: ThumbnailSize? = nil,
        forEveryMode: Bool = true, in response: ImageResponse, waiter: WorkWaiter
    ) async throws -> DecodedEntry {
        let minimum = DecodePolicy.minimumSize(of: header, for: options, thumbnail: thumbnail, forEveryMode: forEveryMode)
        let smallest = DecodePolicy.smallestSize(of: header, for: options, thumbnail: thumbnail, forEveryMode: forEveryMode)
        if let cached = memory.decoded.value(for: content),
            DecodePolicy.covers(cached.image, minimum, page: options.page, animates: options.animates)
        {
            return cached
        }
        let key = DecodeKey(
            content: content, width: minimum.width, height: minimum.height, page: options.page, animates: options.animates)
        let decoder = configuration.decoder
        let maxPixelCount = configuration.maxPixelCount
        // A lasting thumbnail stands in for decoding: a local file's (the freedesktop.org store),
        // or a fetched body's (beside it in the disk cache); one is made after a decode.
        let store: (any ThumbnailStoring)? = thumbnail != nil && content.url.isFileURL ? configuration.thumbnails : nil
        let bodyStore: (any BodyThumbnailStoring)? = thumbnail != nil && !content.url.isFileURL ? configuration.bodyThumbnails : nil
        let path = content.url.path
        let sha256 = content.sha256
        let entry = try await refusingBadImages(content.url) {
            try await run(decodes, key, waiter: waiter) { cancellation in
                let started = ContinuousClock.now
                if let thumbnail, header.animation == nil, options.page == 0,
                    let pixels = store?.thumbnail(ofFile: path, size: thumbnail) ?? bodyStore?.thumbnail(ofBody: sha256, size: thumbnail)
                {
                    var entry = DecodedEntry(image: DecodedImage(header: header, pixels: pixels), decodeTime: started.duration(to: .now))
                    entry.isStoredThumbnail = true
                    return entry
                }
                let image = try response.withDecoderBytes { bytes, mapping in
                    let request = DecodeRequest(
                        minimumSize: minimum, smallestSize: smallest, maxPixelCount: maxPixelCount, animates: options.animates,
                        cancellation: cancellation,
                        page: options.page, allowsEmbeddedThumbnail: thumbnail != nil, mappedInput: mapping)
                    return try decoder.decode(bytes, header: header, request: request)
                }
                return DecodedEntry(image: image, decodeTime: started.duration(to: .now))
            } stored: { [memory] entry in
                memory.keepDecoded(entry, for: content)
            }
        }
        if let thumbnail, !entry.isStoredThumbnail {
            if let store {
                // `large` always: file managers look only in their own size's folder, and theirs is `large`.
                storeThumbnail(of: entry.image, sizes: Set([thumbnail, .large])) { store.store($0, ofFile: path, size: $1, header: $2) }
            } else if let bodyStore {
                let url = content.url.absoluteString
                storeThumbnail(of: entry.image, sizes: [thumbnail]) { pixels, size, _ in
                    bodyStore.store(pixels, ofBody: sha256, size: size, url: url)
                }
            }
        }
        return entry
    }

    /// The thumbnail store that applies to `request`: a thumbnail of a local file.
    private func thumbnailStore(for request: PreviewRequest) -> (any ThumbnailStoring)? {
        guard request.thumbnail != nil, request.url.isFileURL else { return nil }
        return configuration.thumbnails
    }

    /// Makes the lasting thumbnails of a decoded image in `sizes` at low priority, after what the
    /// user waits for (encoding a PNG costs more than decoding at a DCT scale), and gives each to
    /// `write`. An image no larger than the smallest thumbnail needs none.
    private func storeThumbnail(
        of image: DecodedImage, sizes: Set<ThumbnailSize>,
        write: @escaping @Sendable (PixelBuffer, ThumbnailSize, ImageHeader) -> Void
    ) {
        let upright = image.header.uprightSize
        guard max(upright.width, upright.height) > ThumbnailSize.normal.pixels, image.header.animation == nil else { return }
        let pending = thumbnailWrites
        pending.begin()
        let ticket = configuration.scheduler.schedule(priority: .low) {
            defer { pending.end() }
            for size in sizes.sorted(by: { $0.pixels > $1.pixels }) {
                let fitted = size.fitted(width: upright.width, height: upright.height)
                let pixels = image.pixels.reduced(toWidth: fitted.width, height: fitted.height)
                write(pixels, size, image.header)
            }
        }
        thumbnailTickets.withLock { tickets in
            tickets.removeAll { $0.queuedPriority == nil }
            tickets.append(ticket)
        }
    }

    /// Returns once every thumbnail queued so far is written: a command about to exit waits here,
    /// and the writes are then what it waits for, on every core the pool has.
    public func finishThumbnails() async {
        for ticket in thumbnailTickets.withLock({ $0 }) { ticket.setPriority(.high) }
        await thumbnailWrites.wait()
    }

    func render(_ key: RenderKey, from decoded: DecodedEntry, waiter: WorkWaiter) async throws -> CachedPreview {
        let configuration = configuration
        return try await run(renders, key, waiter: waiter) { cancellation in
            if cancellation.isCancelled { throw CancellationError() }
            let (preview, warning) = try RenderedPreview.rendering(
                decoded.image, options: key.options, pngEncoder: configuration.pngEncoder,
                animationCostLimit: configuration.animationCostLimit, cancellation: cancellation)
            return CachedPreview(preview: preview, warning: warning, decodeTime: decoded.decodeTime)
        } stored: { [memory] cached in
            memory.previews.set(cached, for: key, cost: cached.preview.cost)
        }
    }

    /// Joins (or starts on the scheduler) the work for `key` in `table` as `waiter`, and waits for it.
    func run<Key: Hashable & Sendable, Value: Sendable>(
        _ table: StageTable<Key, Value>, _ key: Key, waiter: WorkWaiter,
        _ body: @escaping @Sendable (CancellationFlag) throws -> Value, stored: @escaping @Sendable (Value) -> Void
    ) async throws -> Value {
        guard let (work, isNew) = waiter.join(table, key) else { throw CancellationError() }
        if isNew { work.schedule(on: configuration.scheduler, body, stored: stored) }
        return try await waiter.wait(for: work)
    }

    /// Runs `body`; bytes the decoder refuses (corrupt, truncated before any pixel, too large) are
    /// dropped from memory and the disk cache on the way out, so the next attempt fetches them
    /// again. A format imgview only recognises is good bytes, and stays.
    private func refusingBadImages<T>(_ url: URL, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ImageDecodingError where error.condemnsTheBytes {
            forget(url)
            configuration.fetcher.discard(url)
            throw error
        }
    }
}
