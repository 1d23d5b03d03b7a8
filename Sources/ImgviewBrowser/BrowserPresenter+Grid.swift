import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline
import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension BrowserPresenter {
    /// How long two clicks on the same cell may be apart to open it (GTK's double-click time).
    static let doubleClickTime = Duration.milliseconds(400)

    /// `g`, Enter in the grid, a double click: between the grid and the single image, the
    /// selection kept.
    func toggleGrid() {
        if state.grid != nil {
            for task in gridTasks.values { task.cancel() }
            gridTasks = [:]
            lastGridClick = nil
            update { $0.grid = nil }
            requestSelected(policy: .useCache)
            return
        }
        retireSingleView()
        var next = state
        next.grid = GridViewport(thumbnailPixels: gridThumbnailPixels, cell: configuration.graphics.cell)
        next.viewport = .fit
        next.phase = .idle
        next.isPaused = false
        if let layout = next.gridLayout {
            next.grid?.firstRow = layout.firstRow(
                showing: next.selectedIndex, from: max(0, layout.row(of: next.selectedIndex) - layout.visibleRows / 2),
                count: next.images.count)
        }
        state = next
        requestGridCells()
        commit(state)
    }

    /// Selects `index` in the grid and scrolls (by whole rows) so it shows.
    func selectInGrid(_ index: Int, policy: ImageRequest.CachePolicy) {
        var next = state
        next.selectedIndex = index
        next.notice = nil
        if let layout = next.gridLayout, let grid = next.grid {
            next.grid?.firstRow = layout.firstRow(showing: index, from: grid.firstRow, count: next.images.count)
        }
        state = next
        requestGridCells(reloading: policy == .reload ? state.selectedImage : nil)
        commit(state)
        loadNextPageIfAtEnd()
    }

    /// ↑ ↓ (and `k` `j`, the wheel) in the grid: the cell a row up or down; nothing wraps, and a
    /// last row shorter than the others is reached from any column.
    func moveInGrid(rows: Int) {
        guard let layout = state.gridLayout else { return }
        let count = state.images.count
        let target = state.selectedIndex + rows * layout.columns
        if target < 0 { return }
        if target >= count {
            // Down into a short last row: its last cell.
            guard layout.row(of: count - 1) > layout.row(of: state.selectedIndex) else { return }
            select(count - 1, policy: .useCache)
            return
        }
        select(target, policy: .useCache)
    }

    /// `+` and `-` in the grid: larger or smaller thumbnails, so fewer or more fit.
    func resizeGrid(larger: Bool) {
        guard let grid = state.grid else { return }
        guard let size = grid.resized(larger: larger) else {
            update { $0.notice = Notice(larger ? "thumbnails are as large as they go" : "thumbnails are as small as they go") }
            return
        }
        gridThumbnailPixels = size
        var next = state
        next.grid?.thumbnailPixels = size
        next.grid?.cells = [:]
        if let layout = next.gridLayout {
            next.grid?.firstRow = layout.firstRow(
                showing: next.selectedIndex, from: layout.row(of: next.selectedIndex) - layout.visibleRows / 2,
                count: next.images.count)
        }
        next.notice = Notice("thumbnails \(size) px")
        state = next
        requestGridCells()
        commit(state)
    }

    /// A click on a grid cell selects it; a second on the same cell soon after opens it.
    func clickInGrid(_ index: Int) {
        let now = configuration.clock.now
        if let last = lastGridClick, last.index == index, now - last.at <= Self.doubleClickTime,
            index == state.selectedIndex
        {
            lastGridClick = nil
            toggleGrid()
            return
        }
        lastGridClick = (index, now)
        if index != state.selectedIndex { select(index, policy: .useCache) }
    }

    /// The render options of a grid cell: its image box, in the mode's characters or pixels; a
    /// kitty image carries `image`'s own id, so it is replaced and deleted alone.
    func gridRenderOptions(_ layout: GridLayout, for image: AppImage) -> RenderOptions {
        var graphics = state.mode.graphics.map {
            configuration.graphics.paneOptions($0, columns: layout.cellWidth, rows: layout.imageRows)
        }
        if graphics?.graphics == .kitty { graphics?.imageID = gridImageID(for: image) }
        return RenderOptions(
            columns: layout.cellWidth, rows: layout.imageRows, mode: state.mode.text ?? .blocks, colors: state.colors,
            cellAspect: configuration.cellAspect, background: configuration.graphics.background, viewport: .fit, graphics: graphics)
    }

    /// The first kitty image id of the grid's cells ("ig" and a count): apart from the pane's and
    /// from the small ids `show` and other programs use.
    static let firstGridImageID: UInt32 = 0x6967_0000

    /// The kitty image id of `image`'s cell: one per image, kept while the browser runs, so a cell
    /// scrolled away and back is the same rendered preview, and a scroll deletes only what left.
    func gridImageID(for image: AppImage) -> UInt32 {
        if let id = gridImageIDs[image.urlString] { return id }
        var id = Self.firstGridImageID &+ UInt32(truncatingIfNeeded: gridImageIDs.count)
        if id >= GraphicsTerminal.paneImageID { id &+= 1 }
        gridImageIDs[image.urlString] = id
        return id
    }

    /// Work follows the eye: asks for the visible cells at high priority and the next screen at
    /// low, gives up every other cell's task (its download and decode stop part way), and puts
    /// what is ready into the state. `reloading` is asked for again past the caches.
    func requestGridCells(reloading: AppImage? = nil) {
        guard var grid = state.grid, let layout = state.gridLayout else { return }
        gridImages = state.images
        guard state.layout.fits else { return }
        // The selection stays on screen through a resize, a sort or a removal.
        grid.firstRow = layout.firstRow(showing: state.selectedIndex, from: grid.firstRow, count: state.images.count)
        state.grid?.firstRow = grid.firstRow
        if let reloading {
            gridFailures[reloading.urlString] = nil
            configuration.pipeline.forget(reloading.url)
        }
        // Text cells need far fewer pixels than a `large` thumbnail has; pixel cells the size chosen.
        let thumbnail = state.mode.graphics == nil ? ThumbnailSize.large : ThumbnailSize.covering(grid.thumbnailPixels)
        let count = state.images.count
        let visible = layout.visible(firstRow: grid.firstRow, count: count)
        let ahead = visible.upperBound..<min(count, visible.upperBound + layout.cellsPerScreen)
        var cells: [String: GridCell] = [:]
        var wanted: Set<URL> = []
        var isScreenUnderWay = false
        for index in Array(visible) + Array(ahead) {
            let image = state.images[index]
            let isVisible = visible.contains(index)
            // The next screen is asked for once this one is whole: its reads and decodes would take
            // the cores from the cells on screen. What is under way for it already goes on.
            if !isVisible, isScreenUnderWay, gridTasks[image.url] == nil { continue }
            if let failure = gridFailures[image.urlString] {
                if isVisible { cells[image.urlString] = .failed(failure) }
                continue
            }
            let url = image.url
            let policy: ImageRequest.CachePolicy = image.urlString == reloading?.urlString ? .reload : .useCache
            let options = gridRenderOptions(layout, for: image)
            let request = PreviewRequest(url: url, cachePolicy: policy, options: options, thumbnail: thumbnail)
            if policy == .useCache, let cached = configuration.pipeline.cachedPreview(for: request) {
                if isVisible { cells[image.urlString] = .loaded(cached.preview) }
                continue
            }
            wanted.insert(url)
            if isVisible {
                // A picture of another size stays until its new one is ready; one of another mode goes.
                if case .loaded(let shown)? = grid.cells[image.urlString], policy == .useCache,
                    shown.graphics?.graphics == options.graphics?.graphics
                {
                    cells[image.urlString] = grid.cells[image.urlString]
                } else {
                    cells[image.urlString] = .loading
                }
            }
            let priority: WorkPriority = isVisible ? .high : .low
            if isVisible { isScreenUnderWay = true }
            if let kept = gridTasks[url], kept.request == request {
                kept.priority = priority
                continue
            }
            gridTasks[url]?.cancel()
            gridTasks[url] = startGridTask(request, priority: priority, key: image.urlString)
        }
        for (url, task) in gridTasks where !wanted.contains(url) {
            task.cancel()
            gridTasks[url] = nil
        }
        state.grid?.cells = cells
    }

    private func startGridTask(_ request: PreviewRequest, priority: WorkPriority, key: String) -> PreviewTask {
        let task = configuration.pipeline.previewTask(for: request, priority: priority, progress: { _, _ in }, partial: { _ in })
        Task { [weak self] in
            let result: Result<PreviewResponse, any Error>
            do {
                result = .success(try await task.response)
            } catch {
                result = .failure(error)
            }
            self?.gridCellFinished(task, key: key, with: result)
        }
        return task
    }

    private func gridCellFinished(_ task: PreviewTask, key: String, with result: Result<PreviewResponse, any Error>) {
        guard gridTasks[task.request.url] === task else { return }
        gridTasks[task.request.url] = nil
        let cell: GridCell
        switch result {
        case .success(let response):
            cell = .loaded(response.preview)
        case .failure(let error):
            if Self.isCancellation(error) { return }
            let message = Self.message(for: error)
            gridFailures[key] = message
            cell = .failed(message)
        }
        // Shown if it is still on screen; else the pipeline keeps the preview for when it is again.
        guard state.grid?.cells[key] != nil else { return }
        update { $0.grid?.cells[key] = cell }
        // The screen is whole: now the next one.
        if !gridTasks.values.contains(where: { $0.priority == .high }) { requestGridCells() }
    }
}
