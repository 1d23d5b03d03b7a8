import Foundation

/// The browser's logic: which tab is selected, what is being fetched, what the screen shows.
///
/// It asks an `ImageLoading` for the selected image, decodes and renders off the main actor,
/// and hands every new `BrowserState` to its view. Whatever the user selected last is what the
/// screen shows: each selection bumps a generation, and an outcome from an older one is dropped,
/// however late it arrives. Decoded images and rendered previews are kept, so returning to a tab,
/// resizing or switching modes never fetches again.
@MainActor
public final class BrowserPresenter {
    /// Everything the presenter depends on, so a test swaps one line.
    public struct Configuration: Sendable {
        public var loader: any ImageLoading
        public var decoder: any ImageDecoding
        /// For the cache view; nil when there is no disk cache.
        public var diskCache: DiskCache?
        /// Loads the next page of a paged remote catalog.
        public var catalogPaging: (any CatalogPaging)?
        /// Where `d` saves images.
        public var saveFolder: URL
        public var maxPixelCount: Int
        public var cellAspect: Double
        /// Offline, a stale image in memory is as good as any.
        public var isOffline: Bool
        /// Bytes of decoded images kept for quick returns to a tab.
        public var decodedCostLimit: Int
        public var now: @Sendable () -> Date

        public init(
            loader: any ImageLoading, decoder: any ImageDecoding, diskCache: DiskCache? = nil,
            catalogPaging: (any CatalogPaging)? = nil, saveFolder: URL, maxPixelCount: Int = DecodeRequest.defaultMaxPixelCount,
            cellAspect: Double = 2, isOffline: Bool = false, decodedCostLimit: Int = 256 << 20,
            now: @escaping @Sendable () -> Date = Date.init
        ) {
            self.loader = loader
            self.decoder = decoder
            self.diskCache = diskCache
            self.catalogPaging = catalogPaging
            self.saveFolder = saveFolder
            self.maxPixelCount = maxPixelCount
            self.cellAspect = cellAspect
            self.isOffline = isOffline
            self.decodedCostLimit = decodedCostLimit
            self.now = now
        }
    }

    public private(set) var state: BrowserState
    public weak var view: (any BrowserView)?

    private let configuration: Configuration
    private let maker: PreviewMaker
    private var catalog: Catalog
    private var visitedPages: Set<URL> = []
    private let prepared: MemoryCache<URL, PreparedImage>
    private let previews = MemoryCache<PreviewKey, CellGrid>(costLimit: 4_000_000, countLimit: 64)
    /// Bumped by every selection, reload and stop: outcomes carry the generation they were asked in.
    private var generation = 0
    private var loadTask: Task<Void, Never>?
    private var renderTask: Task<Void, Never>?
    /// Prefetches under way, each with a token so a finished one removes only itself.
    private var prefetches: [URL: (token: UUID, task: Task<Void, Never>)] = [:]
    private var pageTask: Task<Void, Never>?

    public init(catalog: Catalog, configuration: Configuration, terminalSize: TerminalSize, mode: RenderMode, colors: ColorMode) {
        self.catalog = catalog
        self.configuration = configuration
        maker = PreviewMaker(decoder: configuration.decoder, maxPixelCount: configuration.maxPixelCount)
        prepared = MemoryCache(costLimit: configuration.decodedCostLimit, countLimit: 32)
        if case .remote(let first) = catalog.origin { visitedPages.insert(first) }
        state = BrowserState(
            images: catalog.images, hasMorePages: catalog.next != nil, terminalSize: terminalSize, mode: mode, colors: colors)
    }

    /// Shows the first tab.
    public func start() {
        view?.display(state)
        select(state.selectedIndex, policy: .useCache)
    }

    /// Carries out `command`; returns false when the user asked to quit.
    @discardableResult
    public func handle(_ command: BrowserCommand) -> Bool {
        if state.overlay != nil, command != .quit {
            // A panel is open: any key closes it, and only that.
            update { $0.overlay = nil }
            return true
        }
        switch command {
        case .quit:
            return false
        case .dismiss:
            return false
        case .next:
            select(state.selectedIndex + 1, policy: .useCache)
        case .previous:
            select(state.selectedIndex - 1, policy: .useCache)
        case .jump(let index):
            if index != state.selectedIndex { select(index, policy: .useCache) }
        case .reload:
            select(state.selectedIndex, policy: .reload)
        case .stop:
            stop()
        case .save:
            save()
        case .toggleMode:
            update { $0.mode = $0.mode == .blocks ? .ascii : .blocks }
            rerender()
        case .toggleHelp:
            update { $0.overlay = .help }
        case .toggleCache:
            showCache()
        }
        return true
    }

    /// The terminal changed size: lay out again and render the preview for the new pane, from
    /// the decoded image.
    public func resize(to size: TerminalSize) {
        guard size != state.terminalSize else { return }
        update { $0.terminalSize = size }
        rerender()
    }

    /// Stops everything under way; the presenter is done.
    public func shutDown() {
        generation += 1
        loadTask?.cancel()
        renderTask?.cancel()
        pageTask?.cancel()
        for prefetch in prefetches.values { prefetch.task.cancel() }
        prefetches = [:]
    }

    // MARK: Selecting and loading

    private func select(_ index: Int, policy: ImageRequest.CachePolicy) {
        guard state.images.indices.contains(index) else { return }
        let url = state.images[index].url
        generation += 1
        let mine = generation
        loadTask?.cancel()
        renderTask?.cancel()
        // A prefetch of the image now wanted keeps going: the request below joins its transfer.
        cancelPrefetches(keeping: policy == .useCache ? url : nil)
        if policy == .reload {
            prepared.removeValue(for: url)
        }
        var next = state
        next.selectedIndex = index
        next.notice = nil
        if policy == .useCache, let ready = usablePrepared(for: url) {
            let details = ready.details(source: .memory, fetchTime: .zero, now: configuration.now())
            if let options = renderOptions(), let grid = previews.value(for: PreviewKey(ready, options: options)) {
                next.phase = .loaded(ShownImage(details: details, preview: grid, warning: ready.decoded.warning))
                commit(next)
                didShow(index)
            } else {
                next.phase = .loaded(ShownImage(details: details, preview: nil, warning: ready.decoded.warning))
                commit(next)
                present(ready, details: details, generation: mine)
            }
        } else if policy == .useCache, let prefetch = prefetches[url]?.task {
            // Already on its way as a neighbour: wait for that rather than ask twice.
            next.phase = .loading(received: 0, expected: nil)
            commit(next)
            loadTask = Task {
                await prefetch.value
                guard mine == generation else { return }
                if let ready = usablePrepared(for: url) {
                    present(
                        ready, details: ready.details(now: configuration.now()),
                        generation: mine)
                } else {
                    await load(url, policy: policy, generation: mine)
                }
            }
        } else {
            next.phase = .loading(received: 0, expected: nil)
            commit(next)
            loadTask = Task { await self.load(url, policy: policy, generation: mine) }
        }
        loadNextPageIfAtEnd()
    }

    private func load(_ url: URL, policy: ImageRequest.CachePolicy, generation mine: Int) async {
        let gate = ProgressGate { [weak self] received, expected in
            Task { @MainActor in self?.progressed(received: received, expected: expected, generation: mine) }
        }
        do {
            let response = try await configuration.loader.image(
                for: ImageRequest(url: url, cachePolicy: policy), progress: { gate.report($0, $1) })
            guard mine == generation else { return }
            let options = renderOptions() ?? fallbackOptions
            let maker = maker
            let ready: PreparedImage
            if let earlier = prepared.value(for: url), earlier.entry.sha256 == response.entry.sha256,
                earlier.covers(maker.minimumSize(of: earlier.decoded.header, for: options))
            {
                // Revalidated or refetched, and the same bytes: the pixels we have still hold.
                ready = PreparedImage(
                    url: url, bytes: earlier.bytes, entry: response.entry, isCached: response.isCached, source: response.source,
                    fetchTime: response.elapsed, decoded: earlier.decoded, decodeTime: earlier.decodeTime)
            } else {
                ready = try await Task.detached(priority: .userInitiated) {
                    try maker.prepare(response, bytes: try response.data(), for: options)
                }.value
            }
            guard mine == generation else { return }
            prepared.set(ready, for: url, cost: ready.cost)
            present(
                ready, details: ready.details(now: configuration.now()), generation: mine)
        } catch {
            // Bytes the decoder refuses are not worth keeping on disk: the next visit fetches them again.
            if (error as? ImageDecodingError)?.condemnsTheBytes == true, !url.isFileURL { try? configuration.diskCache?.remove(url) }
            guard mine == generation, !Self.isCancellation(error) else { return }
            update { $0.phase = .failed(Self.message(for: error)) }
        }
    }

    private func progressed(received: Int64, expected: Int64?, generation mine: Int) {
        guard mine == generation, case .loading = state.phase else { return }
        update { $0.phase = .loading(received: received, expected: expected) }
    }

    /// Renders `ready` for the current pane (decoding again from its bytes if the pane outgrew
    /// its pixels) and shows it, unless the user moved on meanwhile.
    private func present(_ ready: PreparedImage, details: ImageDetails, generation mine: Int) {
        guard let options = renderOptions() else {
            update { $0.phase = .loaded(ShownImage(details: details, preview: nil, warning: ready.decoded.warning)) }
            return
        }
        let key = PreviewKey(ready, options: options)
        if let grid = previews.value(for: key) {
            update { $0.phase = .loaded(ShownImage(details: details, preview: grid, warning: ready.decoded.warning)) }
            didShow(state.selectedIndex)
            return
        }
        renderTask?.cancel()
        if case .loaded(let shown) = state.phase, shown.details.url == ready.url, shown.preview != nil {
            // Keep the current picture on screen while the new size or mode renders.
        } else {
            update { $0.phase = .loaded(ShownImage(details: details, preview: nil, warning: ready.decoded.warning)) }
        }
        let maker = maker
        renderTask = Task {
            let outcome = await Task.detached(priority: .userInitiated) { () -> Result<(PreparedImage, CellGrid), any Error> in
                Result {
                    let source =
                        ready.covers(maker.minimumSize(of: ready.decoded.header, for: options))
                        ? ready : try maker.redecode(ready, for: options)
                    return (source, maker.render(source, options: options))
                }
            }.value
            guard mine == generation, !Task.isCancelled else { return }
            switch outcome {
            case .success(let (source, grid)):
                prepared.set(source, for: source.url, cost: source.cost)
                previews.set(grid, for: key, cost: grid.columns * grid.rows)
                guard options == renderOptions() else {
                    // The pane changed while this rendered: render for the pane as it is now.
                    present(source, details: details, generation: mine)
                    return
                }
                update { $0.phase = .loaded(ShownImage(details: details, preview: grid, warning: source.decoded.warning)) }
                didShow(state.selectedIndex)
            case .failure(let error):
                update { $0.phase = .failed(Self.message(for: error)) }
            }
        }
    }

    /// Renders the shown image again for a new size or mode.
    private func rerender() {
        guard case .loaded(let shown) = state.phase, shown.details.url == state.selectedImage?.url else { return }
        guard let ready = prepared.value(for: shown.details.url) else {
            // Evicted meanwhile: the image service still has the bytes in its caches.
            select(state.selectedIndex, policy: .useCache)
            return
        }
        present(ready, details: shown.details, generation: generation)
    }

    private func stop() {
        guard case .loading = state.phase else { return }
        generation += 1
        loadTask?.cancel()
        loadTask = nil
        if let url = state.selectedImage?.url, let joined = prefetches.removeValue(forKey: url) {
            joined.task.cancel()
        }
        update {
            $0.phase = .cancelled
            $0.notice = Notice("stopped loading \($0.selectedImage?.name ?? "")")
        }
    }

    // MARK: Prefetching

    /// Once the selected image is on screen, fetch and render its neighbours at low priority.
    private func didShow(_ index: Int) {
        guard let options = renderOptions() else { return }
        for neighbour in [index + 1, index - 1] where state.images.indices.contains(neighbour) {
            let url = state.images[neighbour].url
            guard prefetches[url] == nil, usablePrepared(for: url) == nil else { continue }
            let loader = configuration.loader
            let maker = maker
            let gate = ProgressGate { [weak self] received, expected in
                Task { @MainActor in self?.prefetchProgressed(url, received: received, expected: expected) }
            }
            let token = UUID()
            let task = Task(priority: .low) {
                let outcome = try? await {
                    let response = try await loader.image(for: ImageRequest(url: url), progress: { gate.report($0, $1) })
                    return try await Task.detached(priority: .low) {
                        let ready = try maker.prepare(response, bytes: try response.data(), for: options)
                        return (ready, maker.render(ready, options: options))
                    }.value
                }()
                self.prefetched(url, token: token, outcome: outcome, options: options)
            }
            prefetches[url] = (token, task)
        }
    }

    /// A prefetch the user has since selected shows its progress like any load.
    private func prefetchProgressed(_ url: URL, received: Int64, expected: Int64?) {
        guard state.selectedImage?.url == url, case .loading = state.phase else { return }
        update { $0.phase = .loading(received: received, expected: expected) }
    }

    /// Whether a decoded image for `url` is at hand (for tests).
    func hasPrepared(_ url: URL) -> Bool {
        prepared.value(for: url) != nil
    }

    private func prefetched(_ url: URL, token: UUID, outcome: (PreparedImage, CellGrid)?, options: RenderOptions) {
        guard prefetches[url]?.token == token else { return }
        prefetches[url] = nil
        // Failures are left for the user to see when they select the tab.
        guard let (ready, grid) = outcome else { return }
        prepared.set(ready, for: url, cost: ready.cost)
        previews.set(grid, for: PreviewKey(ready, options: options), cost: grid.columns * grid.rows)
    }

    private func cancelPrefetches(keeping kept: URL?) {
        for (url, prefetch) in prefetches where url != kept {
            prefetch.task.cancel()
            prefetches[url] = nil
        }
    }

    // MARK: Paging

    private func loadNextPageIfAtEnd() {
        guard state.selectedIndex == state.images.count - 1, let next = catalog.next, pageTask == nil,
            let paging = configuration.catalogPaging
        else { return }
        guard visitedPages.insert(next).inserted, visitedPages.count <= CatalogLoader.maxPages else {
            update {
                $0.hasMorePages = false
                $0.notice = Notice("catalog: the page \(next.absoluteString) was already loaded; paging stops here", isError: true)
            }
            return
        }
        update { $0.isLoadingMorePages = true }
        let current = catalog
        pageTask = Task {
            let result: Result<Catalog, CatalogError>
            do throws(CatalogError) {
                result = .success(try await paging.loadNextPage(of: current))
            } catch {
                result = .failure(error)
            }
            pageTask = nil
            switch result {
            case .success(let grown):
                catalog = grown
                update {
                    $0.images = grown.images
                    $0.hasMorePages = grown.next != nil
                    $0.isLoadingMorePages = false
                }
            case .failure(let error):
                // Let the user try again by coming back to the last tab.
                visitedPages.remove(next)
                update {
                    $0.isLoadingMorePages = false
                    $0.notice = Notice(error.message, isError: true)
                }
            }
        }
    }

    // MARK: Saving and the cache view

    private func save() {
        guard case .loaded(let shown) = state.phase, let ready = prepared.value(for: shown.details.url),
            let image = state.selectedImage
        else {
            update { $0.notice = Notice("nothing to save yet", isError: true) }
            return
        }
        let format = ready.decoded.header.format
        var name = OutputNaming.fileName(for: ready.url) ?? OutputNaming.fallbackName(catalogName: image.name, format: format)
        // A URL without an extension (…/images/hopper) still saves as a file other programs recognise.
        if (name as NSString).pathExtension.isEmpty { name += "." + format.fileExtension }
        let fileName = name
        let saver = ImageSaver(folder: configuration.saveFolder)
        Task {
            let result = await Task.detached { Result { try saver.save(ready.bytes, preferredName: fileName) } }.value
            switch result {
            case .success(let url):
                update { $0.notice = Notice("saved \(image.name) to \(Self.displayPath(url))") }
            case .failure(let error):
                update { $0.notice = Notice("could not save \(image.name): \(Self.message(for: error))", isError: true) }
            }
        }
    }

    private func showCache() {
        guard let cache = configuration.diskCache else {
            update { $0.notice = Notice("there is no disk cache", isError: true) }
            return
        }
        let catalog = catalog
        let now = configuration.now()
        Task {
            let overview = await Task.detached(priority: .userInitiated) { () -> CacheOverview in
                let entries = cache.entries()
                let rows = entries.map { entry in
                    CacheOverview.Row(
                        name: catalog.image(for: entry.url)?.name, url: entry.url, byteCount: entry.byteCount, format: entry.format,
                        isFresh: entry.isFresh(at: now), lastUsed: entry.lastAccessedAt)
                }
                return CacheOverview(
                    rows: rows, totalBytes: entries.reduce(0) { $0 + $1.byteCount }, limitBytes: cache.sizeLimit,
                    directory: cache.directory.path)
            }.value
            update { $0.overlay = .cache(overview) }
        }
    }

    // MARK: Helpers

    private func update(_ change: (inout BrowserState) -> Void) {
        var next = state
        change(&next)
        commit(next)
    }

    private func commit(_ next: BrowserState) {
        guard next != state else { return }
        state = next
        view?.display(state)
    }

    /// A decoded image that may be shown without asking the loader: fresh, or offline.
    private func usablePrepared(for url: URL) -> PreparedImage? {
        guard let ready = prepared.value(for: url) else { return nil }
        if configuration.isOffline || ready.source == .file || ready.entry.isFresh(at: configuration.now()) { return ready }
        return nil
    }

    private func renderOptions() -> RenderOptions? {
        let layout = BrowserLayout(size: state.terminalSize)
        guard layout.fits else { return nil }
        let area = layout.previewArea
        return RenderOptions(
            columns: area.width, rows: area.height, mode: state.mode, colors: state.colors, cellAspect: configuration.cellAspect)
    }

    /// What to decode for when the terminal is too small to show a preview at all.
    private var fallbackOptions: RenderOptions {
        RenderOptions(columns: 80, rows: 24, mode: state.mode, colors: state.colors, cellAspect: configuration.cellAspect)
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? ImagePipelineError) == .cancelled
    }

    static func message(for error: any Error) -> String {
        if let error = error as? any UserFacingError { return error.message }
        if let error = error as? FileSystemError { return error.description }
        return TerminalText.sanitized(String(describing: error))
    }

    private static func displayPath(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let path = url.path
        return path.hasPrefix(cwd + "/") ? "./" + path.dropFirst(cwd.count + 1) : path
    }
}

/// Which rendered preview: an image (its URL and its bytes' hash, so a reload that brings new
/// bytes never shows the old picture) at a pane size, mode and colour depth.
struct PreviewKey: Hashable, Sendable {
    let url: URL
    let sha256: String
    let columns: Int
    let rows: Int
    let mode: RenderMode
    let colors: ColorMode

    init(_ image: PreparedImage, options: RenderOptions) {
        url = image.url
        sha256 = image.entry.sha256
        columns = options.columns
        rows = options.rows
        mode = options.mode
        colors = options.colors
    }
}

/// Passes on a transfer's progress only when the shown figure changes: a whole percent, or
/// another 256 KB when the size is unknown. Chunks arrive every few kilobytes.
final class ProgressGate: Sendable {
    private let forward: @Sendable (Int64, Int64?) -> Void
    private let last = Locked<Int64>(-1)

    init(forward: @escaping @Sendable (Int64, Int64?) -> Void) {
        self.forward = forward
    }

    func report(_ received: Int64, _ expected: Int64?) {
        let step: Int64
        if let expected, expected > 0 {
            step = received * 100 / expected
        } else {
            step = received >> 18
        }
        let changed = last.withLock { last in
            guard step != last else { return false }
            last = step
            return true
        }
        if changed { forward(received, expected) }
    }
}
