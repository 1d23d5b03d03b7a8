import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline
import ImgviewSupport
import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The browser's logic: which tab is selected, which previews are on their way, what the screen
/// shows.
///
/// It asks the `ImagePipeline` for "the preview of this tab for the pane as it is now" and
/// hands every new `BrowserState` to its view. Whatever the user asked for last is what the
/// screen shows: an answer is shown only if it is the answer to the request the user made last,
/// however late or early it arrives. Tabs near the selected one keep their tasks at low priority
/// (prefetching, or a download the user may come back to); tabs further away are given up.
@MainActor
public final class BrowserPresenter {
    /// Everything the presenter depends on, so a test swaps one line.
    public struct Configuration: Sendable {
        public var pipeline: ImagePipeline
        /// For the cache view; nil when there is no disk cache.
        public var diskCache: DiskCache?
        /// Loads the next page of a paged remote catalog.
        public var catalogPaging: (any CatalogPaging)?
        /// Tabs still being listed when the browser opens (the rest of a big folder), in batches.
        public var moreTabs: AsyncStream<[AppImage]>?
        /// Where `d` saves images.
        public var saveFolder: URL
        public var cellAspect: Double
        /// The block characters the blocks mode draws with.
        public var symbols: BlockSymbols
        /// How many tabs on each side of the selected one are prefetched, and keep their downloads
        /// when the user moves away.
        public var neighbourhood: Int
        public var now: @Sendable () -> Date
        /// What animations play by.
        public var clock: any PlaybackClock
        /// What pixel previews need from the terminal (cell size, background, passthrough).
        public var graphics: GraphicsTerminal
        /// Which key does what.
        public var keymap: Keymap
        /// The order to start in.
        public var ordering: ImageOrdering
        /// Reads what `date`, `mtime` and `size` sort by.
        public var sortKeys: any SortKeyReading
        /// The random numbers `shuffle` sorts by.
        public var random: @Sendable () -> UInt64
        /// The slideshow's interval, and whether it starts running.
        public var slideshow: Slideshow
        /// What copy, open, trash and the key-handler use.
        public var actions: BrowserActions
        /// Shown in the status line as the browser opens (what was left out of its arguments).
        public var openingNotice: String?

        public init(
            pipeline: ImagePipeline, diskCache: DiskCache? = nil, catalogPaging: (any CatalogPaging)? = nil,
            moreTabs: AsyncStream<[AppImage]>? = nil, saveFolder: URL, cellAspect: Double = 2, symbols: BlockSymbols = .quad,
            neighbourhood: Int = 1,
            now: @escaping @Sendable () -> Date = Date.init, clock: any PlaybackClock = SystemPlaybackClock(),
            graphics: GraphicsTerminal = GraphicsTerminal(), keymap: Keymap = .standard,
            ordering: ImageOrdering = ImageOrdering(order: .name),
            sortKeys: any SortKeyReading = FileSortKeyReader(),
            random: @escaping @Sendable () -> UInt64 = { UInt64.random(in: .min ... .max) },
            slideshow: Slideshow = Slideshow(), actions: BrowserActions = BrowserActions(),
            openingNotice: String? = nil
        ) {
            self.pipeline = pipeline
            self.diskCache = diskCache
            self.catalogPaging = catalogPaging
            self.moreTabs = moreTabs
            self.saveFolder = saveFolder
            self.cellAspect = cellAspect
            self.symbols = symbols
            self.neighbourhood = neighbourhood
            self.now = now
            self.clock = clock
            self.graphics = graphics
            self.keymap = keymap
            self.ordering = ordering
            self.sortKeys = sortKeys
            self.random = random
            self.slideshow = slideshow
            self.actions = actions
            self.openingNotice = openingNotice
        }
    }

    public internal(set) var state: BrowserState
    public weak var view: (any BrowserView)?
    /// What the view was last given: a selection changes the state in steps, and the view sees
    /// only where they end.
    private var displayed: BrowserState?

    let configuration: Configuration
    var catalog: Catalog
    private var visitedPages: Set<URL> = []
    private var pageTask: Task<Void, Never>?
    /// Receives the tabs of a listing still under way.
    var listingTask: Task<Void, Never>?
    /// The task whose answer the screen waits for: the selected tab's, for the pane as it is.
    private var current: PreviewTask?
    /// Live tasks by tab URL: the selected tab's and its neighbours'. A task leaves it when its
    /// answer has been taken (tests wait for that).
    private(set) var tasks: [URL: PreviewTask] = [:]
    /// Tasks replaced by a request for the same image (a new size, mode or a reload), kept at low
    /// priority until the current one settles: cancelling them first could give up the transfer
    /// the new request is about to share.
    private var superseded: [PreviewTask] = []
    /// Where the shown animation is, and the one wake-up that moves it on: none while nothing moves.
    private var playback = AnimationPlayback()
    private let wake = DeadlineWake()
    /// When the slideshow's current image was first shown, and the one wake-up that moves it on.
    var slideShown: (url: String, at: Duration)?
    let slideWake = DeadlineWake()
    /// Each image's place in the listing, by URL text: the `name` order, and ties in the others.
    var arrival: [String: Int] = [:]
    /// What the images are sorted by, once read; and `shuffle`'s random numbers.
    var sortKeys: [String: ImageSortKeys] = [:]
    var shuffleKeys: [String: UInt64] = [:]
    /// Images that arrived while sort keys were needed, waiting for theirs before they take their place.
    var waitingForKeys: [AppImage] = []
    /// The sort keys being read, and whether the whole list is to be sorted again when they are in.
    var keyReading: Task<Void, Never>?
    var resortsAfterReading = false
    /// Nothing is selected until the first images are in their order.
    var startsAfterSorting = false
    /// What the last trash moved, for undo.
    var lastTrash: [TrashedImage] = []
    /// The key-handler is running: a second one waits.
    var isRunningKeyHandler = false
    /// The grid's live tasks by image URL: the visible cells' at high priority, the next screen's at low.
    var gridTasks: [URL: PreviewTask] = [:]
    /// Why images could not be shown in the grid, by URL text: not asked for again until reloaded.
    var gridFailures: [String: String] = [:]
    /// The list the grid's cells were last asked for: when it changes (a folder's next batch, a
    /// sort, the trash), the cells are asked for again.
    var gridImages: [AppImage] = []
    /// The grid's thumbnail size, kept from one visit to the grid to the next.
    var gridThumbnailPixels = GridViewport.standardSize
    /// The last click on a grid cell, for a double click.
    var lastGridClick: (index: Int, at: Duration)?
    /// The kitty image id of each image's grid cell, by URL text (`gridImageID(for:)`).
    var gridImageIDs: [String: UInt32] = [:]

    /// - Parameters:
    ///   - mode: the preview mode to start in.
    ///   - modes: what `m` cycles through (default: blocks and ASCII); `mode` is added when missing.
    public init(
        catalog: Catalog, configuration: Configuration, terminalSize: TerminalSize, mode: PreviewMode, modes: [PreviewMode]? = nil,
        colors: ColorMode
    ) {
        self.catalog = catalog
        self.configuration = configuration
        if case .remote(let first) = catalog.origin { visitedPages.insert(first) }
        state = BrowserState(
            images: catalog.images, hasMorePages: catalog.next != nil, terminalSize: terminalSize, mode: mode, modes: modes,
            colors: colors)
        state.keymap = configuration.keymap
        state.order = configuration.ordering.order
        state.isReversed = configuration.ordering.isReversed
        state.slideshow = configuration.slideshow
    }

    /// Shows the first tab (in the order asked for: when that needs the files read, once they are).
    public func start() {
        if let moreTabs = configuration.moreTabs { receive(moreTabs) }
        let first = state.images
        state.images = []
        admit(first, starting: true)
        commit(state)
        if !startsAfterSorting { select(state.selectedIndex, policy: .useCache) }
        if let text = configuration.openingNotice { update { $0.notice = Notice(text, isError: true) } }
    }

    /// Carries out `command`; returns false when the user asked to quit.
    @discardableResult
    public func handle(_ command: BrowserCommand) -> Bool {
        let pauses = state.slideshow.status == .running && command != .toggleSlideshow && command != .quit
        if pauses { pauseSlideshow() }
        defer { if pauses { noteSlideshowPaused() } }
        if state.overlay != nil, command != .quit {
            // A panel is open: its own keys work in it, any other closes it, and only that.
            if !handleInPanel(command) { update { $0.overlay = nil } }
            return true
        }
        // What the status line said is old news once the user does something else: gone with
        // the command's own change (a frame of the old tab without it would be one frame too many),
        // or on its own when the command changes nothing.
        state.notice = nil
        defer { if displayed?.notice != nil, state.notice == nil { commit(state) } }
        switch command {
        case .quit, .dismiss:
            return false
        case .next:
            select(state.selectedIndex + 1, policy: .useCache)
        case .previous:
            select(state.selectedIndex - 1, policy: .useCache)
        case .jump(let index):
            if index != state.selectedIndex { select(index, policy: .useCache) }
        case .first, .last, .pageForward, .pageBack:
            navigate(command)
        case .find:
            openPrompt(.find)
        case .lineUp, .lineDown:
            if state.grid != nil { moveInGrid(rows: command == .lineDown ? 1 : -1) }
        case .remove:
            break
        case .toggleFullWidth, .zoomIn, .zoomOut, .zoomFit, .pan, .nextPage, .previousPage:
            changeView(command)
        case .reload:
            select(state.selectedIndex, policy: .reload)
        case .stop:
            stop()
        case .save:
            save()
        case .toggleMode:
            update {
                $0.mode = $0.nextMode
                $0.notice = Notice("preview mode \($0.mode.rawValue) · m: \(BrowserScreen.modeCycle($0))")
            }
            requestSelected(policy: .useCache)
        case .toggleHelp:
            update { $0.overlay = .help }
        case .toggleCache:
            showCache()
        case .togglePause:
            togglePause()
        case .toggleMark, .markAll, .invertMarks:
            changeMarks(command)
        case .copy:
            copyTargets()
        case .open:
            openTargets()
        case .trash:
            trashTargets()
        case .undo:
            undoTrash()
        case .toggleSlideshow:
            toggleSlideshow()
        case .cycleOrder:
            cycleOrder()
        case .keyHandler:
            awaitHandlerKey()
        case .toggleGrid:
            toggleGrid()
        }
        return true
    }

    /// The terminal changed size: lay out again and ask for the preview for the new pane (the
    /// pipeline renders it again from the decoded image).
    public func resize(to size: TerminalSize) {
        guard size != state.terminalSize else { return }
        update { $0.terminalSize = size }
        // The same view in the new box: kept inside the image, within the zoom the new box allows.
        if !state.viewport.isFit { keepViewInBounds() }
        requestSelected(policy: .useCache)
    }

    /// Stops everything under way; the presenter is done.
    public func shutDown() {
        pageTask?.cancel()
        listingTask?.cancel()
        for task in tasks.values { task.cancel() }
        for task in superseded { task.cancel() }
        for task in gridTasks.values { task.cancel() }
        tasks = [:]
        superseded = []
        gridTasks = [:]
        current = nil
        wake.cancel()
        slideWake.cancel()
        keyReading?.cancel()
    }

    // MARK: Selecting

    func select(_ index: Int, policy: ImageRequest.CachePolicy) {
        guard state.images.indices.contains(index) else { return }
        if state.grid != nil {
            selectInGrid(index, policy: policy)
            return
        }
        var next = state
        if index != next.selectedIndex {
            next.viewport = .fit
            next.page = 0
        }
        next.selectedIndex = index
        next.notice = nil
        next.isPaused = false
        state = next
        keepOnlyNeighbours(of: index)
        requestSelected(policy: policy)
        commit(state)
        loadNextPageIfAtEnd()
    }

    /// Asks for the selected tab's preview for the pane as it is now, and shows it when it comes:
    /// at once if the pipeline has it in memory.
    func requestSelected(policy: ImageRequest.CachePolicy) {
        if state.grid != nil {
            requestGridCells(reloading: policy == .reload ? state.selectedImage : nil)
            // What it found (the rows kept in sight of the selection, cells the pipeline has
            // rendered) is shown now: after a resize or `m` nothing else may come to show it.
            commit(state)
            return
        }
        guard let image = state.selectedImage else { return }
        if !state.layout.fits, policy == .useCache, case .loaded(let shown) = state.phase,
            shown.facts.url == image.url
        {
            // Nothing to draw a preview in: what is known stays until the terminal grows again.
            return
        }
        let request = PreviewRequest(url: image.url, cachePolicy: policy, options: renderOptions())
        if let current, current.request == request { return }
        if let shown = configuration.pipeline.cachedPreview(for: request) {
            retireCurrent()
            show(.success(shown))
            return
        }
        let task: PreviewTask
        if policy == .useCache, let kept = tasks[image.url], kept.request == request {
            // A prefetch, or a download the user left and came back to: it goes on where it is.
            task = kept
            task.priority = .high
        } else {
            task = start(request, priority: .high)
            if let replaced = tasks.updateValue(task, forKey: image.url) {
                replaced.priority = .low
                superseded.append(replaced)
            }
        }
        if current !== task { retireCurrent() }
        current = task
        var next = state
        if case .loaded(let shown) = state.phase, shown.facts.url == image.url, policy == .useCache {
            // A new size or mode of the picture on screen: keep it there while the new one renders.
        } else if let facts = configuration.pipeline.cachedFacts(for: request.imageRequest) {
            // Seen before: its facts at once, its preview when it has rendered for this pane.
            next.phase = .loaded(ShownImage(facts: facts, preview: nil))
        } else if let progress = task.progress {
            // The last picture may have seen more bytes than the last progress report (they come in steps).
            let partial = task.partialPreview
            next.phase = .loading(
                received: max(progress.received, partial?.received ?? 0), expected: progress.expected ?? partial?.expected,
                partial: partial?.preview)
        } else {
            next.phase = .loading(received: 0, expected: nil)
        }
        commit(next)
    }

    /// The current task is no longer what the screen waits for.
    func retireCurrent() {
        guard let task = current else { return }
        current = nil
        task.priority = .low
    }

    private func start(_ request: PreviewRequest, priority: WorkPriority) -> PreviewTask {
        let gate = ProgressGate { [weak self] received, expected in
            Task { @MainActor in self?.progressed(request, received: received, expected: expected) }
        }
        let started = configuration.pipeline.previewTask(
            for: request, priority: priority, progress: { gate.report($0, $1) },
            partial: { [weak self] partial in Task { @MainActor in self?.arrived(partial, for: request) } })
        Task { [weak self] in
            let result: Result<PreviewResponse, any Error>
            do {
                result = .success(try await started.response)
            } catch {
                result = .failure(error)
            }
            self?.finished(started, with: result)
        }
        return started
    }

    private func progressed(_ request: PreviewRequest, received: Int64, expected: Int64?) {
        guard current?.request == request, case .loading(_, _, let partial) = state.phase else { return }
        update { $0.phase = .loading(received: received, expected: expected, partial: partial) }
    }

    /// A picture of what has arrived of the image on its way to the screen: shown until the next, or the final one.
    private func arrived(_ partial: PartialPreview, for request: PreviewRequest) {
        guard current?.request == request, case .loading(let received, let expected, _) = state.phase else { return }
        update {
            $0.phase = .loading(
                received: max(received, partial.received), expected: expected ?? partial.expected, partial: partial.preview)
        }
    }

    private func finished(_ task: PreviewTask, with result: Result<PreviewResponse, any Error>) {
        if tasks[task.request.url] === task { tasks[task.request.url] = nil }
        superseded.removeAll { $0 === task }
        guard task === current else { return }
        current = nil
        if case .failure(let error) = result, Self.isCancellation(error) { return }
        show(result)
    }

    /// Shows an answer to the request the user made last.
    private func show(_ result: Result<PreviewResponse, any Error>) {
        switch result {
        case .success(let response):
            let preview = state.layout.fits ? response.preview : nil
            update { $0.phase = .loaded(ShownImage(facts: response.facts, preview: preview, warning: response.warning)) }
        case .failure(let error):
            update { $0.phase = .failed(Self.message(for: error)) }
        }
        settle()
    }

    /// The selected tab is on screen (or failed): give up replaced requests, and prefetch its
    /// neighbours at low priority.
    private func settle() {
        for task in superseded { task.cancel() }
        superseded = []
        guard state.layout.fits else { return }
        // A neighbour is shown whole, from its first page, when the user gets there.
        let options = renderOptions(viewport: .fit, page: 0)
        for index in neighbours(of: state.selectedIndex) {
            let url = state.images[index].url
            let request = PreviewRequest(url: url, options: options)
            if let kept = tasks[url] {
                kept.priority = .low
                if kept.request == request { continue }
            }
            if configuration.pipeline.cachedPreview(for: request) != nil { continue }
            let task = start(request, priority: .low)
            if let replaced = tasks.updateValue(task, forKey: url) { replaced.cancel() }
        }
    }

    /// Lowers the tasks of tabs next to `index` and gives up those of tabs further away.
    func keepOnlyNeighbours(of index: Int) {
        let near = Set(neighbours(of: index).map { state.images[$0].url }).union([state.images[index].url])
        for (url, task) in tasks where !near.contains(url) {
            task.cancel()
            tasks[url] = nil
        }
        for task in tasks.values where task.request.url != state.images[index].url {
            task.priority = .low
        }
    }

    private func neighbours(of index: Int) -> [Int] {
        let distance = max(0, configuration.neighbourhood)
        guard distance > 0 else { return [] }
        return (1...distance).flatMap { [index + $0, index - $0] }.filter { state.images.indices.contains($0) }
    }

    /// The single view's work is no longer wanted (the grid shows instead): its tasks are given
    /// up, and nothing on screen plays.
    func retireSingleView() {
        for task in tasks.values { task.cancel() }
        for task in superseded { task.cancel() }
        tasks = [:]
        superseded = []
        current = nil
    }

    private func stop() {
        guard case .loading = state.phase, let task = current else { return }
        current = nil
        task.cancel()
        if tasks[task.request.url] === task { tasks[task.request.url] = nil }
        update {
            $0.phase = .cancelled
            $0.notice = Notice("stopped loading \($0.selectedImage?.name ?? "")")
        }
    }

    /// Whether a preview task for `url` is live: selected, kept as a neighbour, or superseded (for tests).
    func isWorking(on url: URL) -> Bool {
        tasks[url] != nil || superseded.contains { $0.request.url == url } || current?.request.url == url
    }

    /// Whether the preview of the tab at `index` for the pane as it is now is in memory (for tests).
    func hasPreview(at index: Int) -> Bool {
        configuration.pipeline.cachedPreview(
            for: PreviewRequest(url: state.images[index].url, options: renderOptions(viewport: .fit, page: 0)))
            != nil
    }

    // MARK: Animation

    /// Space: pauses the animation on screen or plays it on; one that has played all its passes
    /// plays again from the start.
    private func togglePause() {
        guard case .loaded(let shown) = state.phase, shown.preview?.animation != nil else { return }
        let now = configuration.clock.now
        if playback.hasEnded(now: now) {
            playback.rewind(now: now)
            update { $0.isPaused = false }
        } else {
            update { $0.isPaused.toggle() }
        }
    }

    /// Puts the frame due now into `next`, and keeps one wake-up for the frame after, only while
    /// an animation is on screen and runs (not paused, no panel over it).
    private func advanceAnimation(in next: inout BrowserState) {
        guard case .loaded(var shown) = next.phase else {
            playback = AnimationPlayback()
            scheduleWake(at: nil)
            return
        }
        let step = playback.follow(
            url: shown.facts.url, animation: shown.preview?.animation, isRunning: !next.isPaused && next.overlay == nil,
            now: configuration.clock.now)
        if shown.frame != step.frame {
            shown.frame = step.frame
            next.phase = .loaded(shown)
        }
        scheduleWake(at: step.wake)
    }

    private func scheduleWake(at deadline: Duration?) {
        wake.schedule(at: deadline, on: configuration.clock) { [weak self] in
            guard let self else { return }
            self.commit(self.state)
        }
    }

    // MARK: Paging

    func loadNextPageIfAtEnd() {
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
                // Only the new page's images: those of earlier pages moved to the trash since stay gone.
                let added = Array(grown.images.dropFirst(current.images.count))
                catalog.next = grown.next
                catalog.images += added
                admit(added)
                update {
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
        let marked = state.markedImages
        if !marked.isEmpty {
            saveMarked(marked)
            return
        }
        guard case .loaded(let shown) = state.phase, let image = state.selectedImage, shown.facts.url == image.url else {
            update { $0.notice = Notice("nothing to save yet", isError: true) }
            return
        }
        let pipeline = configuration.pipeline
        let saver = ImageSaver(folder: configuration.saveFolder)
        Task {
            let result: Result<URL, any Error>
            do {
                let response = try await pipeline.bytes(for: ImageRequest(url: image.url))
                let format = response.entry.format
                var name = OutputNaming.fileName(for: image.url) ?? OutputNaming.fallbackName(catalogName: image.name, format: format)
                // A URL without an extension (…/images/hopper) still saves as a file other programs recognise.
                if PathText.fileExtension(of: name).isEmpty { name += "." + format.fileExtension }
                let fileName = name
                result = await Task.detached {
                    Result { try saver.save(try response.data(), preferredName: fileName, origin: response.entry.finalURL) }
                }.value
            } catch {
                result = .failure(error)
            }
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
                // Each size is an entry file's to say (damaged, or written by hand): summed saturating.
                let totalBytes = entries.reduce(Int64(0)) { total, entry in
                    let (sum, overflow) = total.addingReportingOverflow(max(0, entry.byteCount))
                    return overflow ? .max : sum
                }
                return CacheOverview(rows: rows, totalBytes: totalBytes, limitBytes: cache.sizeLimit, directory: cache.directory.path)
            }.value
            update { $0.overlay = .cache(overview) }
        }
    }

    // MARK: Helpers

    func update(_ change: (inout BrowserState) -> Void) {
        var next = state
        change(&next)
        commit(next)
    }

    func commit(_ proposed: BrowserState) {
        var next = proposed
        if next.grid != nil, next.images != gridImages {
            state = next
            requestGridCells()
            next = state
        }
        advanceAnimation(in: &next)
        followSlideshow(next)
        state = next
        guard next != displayed else { return }
        displayed = next
        view?.display(next)
    }

    /// The pane's box, and the part of the image it shows (the state's view unless told); when the
    /// terminal is too small to show a pane, a box the preview can be made for meanwhile (the
    /// facts pane is hidden too, so only the facts matter).
    func renderOptions(viewport: Viewport? = nil, page: Int? = nil) -> RenderOptions {
        let layout = state.layout
        let area = layout.fits ? layout.previewArea : Rectangle(column: 0, row: 0, width: 80, height: 24)
        let graphics = state.mode.graphics.map { configuration.graphics.paneOptions($0, columns: area.width, rows: area.height) }
        return RenderOptions(
            columns: area.width, rows: area.height, mode: state.mode.text ?? .blocks, colors: state.colors,
            symbols: configuration.symbols, cellAspect: configuration.cellAspect, viewport: viewport ?? state.viewport, graphics: graphics,
            page: page ?? state.page)
    }

    static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? ImagePipelineError) == .cancelled || (error as? ImageDecodingError) == .cancelled
    }

    static func message(for error: any Error) -> String {
        if let error = error as? any UserFacingError { return error.message }
        if let error = error as? FileSystemError { return error.description }
        return TerminalText.sanitized(String(describing: error))
    }

    static func displayPath(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let path = url.path
        return path.hasPrefix(cwd + "/") ? "./" + path.dropFirst(cwd.count + 1) : path
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
