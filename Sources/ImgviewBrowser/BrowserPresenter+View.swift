import ImgviewImaging

extension BrowserPresenter {
    /// `f`, zoom, pan and pages: the same image, shown differently. The pipeline renders the new view from
    /// the decoded pixels it keeps (or decodes more of them for a closer look), never fetching.
    func changeView(_ command: BrowserCommand) {
        if state.grid != nil {
            // In the grid, `+` and `-` size the thumbnails; the single image's view waits for it.
            if command == .zoomIn || command == .zoomOut { resizeGrid(larger: command == .zoomIn) }
            return
        }
        switch command {
        case .toggleFullWidth:
            update { $0.isFullWidth.toggle() }
            if !state.viewport.isFit { keepViewInBounds() }
        case .zoomFit:
            guard !state.viewport.isFit else { return }
            update { $0.viewport = .fit }
        case .zoomIn, .zoomOut:
            guard let size = shownImageSize() else { return }
            let options = renderOptions()
            let maximum = options.maximumZoom(width: size.width, height: size.height)
            let zoomed = state.viewport.zoomed(
                by: command == .zoomIn ? Viewport.step : 1 / Viewport.step, maximum: maximum, width: Double(size.width),
                height: Double(size.height), boxAspect: options.boxAspect)
            guard zoomed != state.viewport else {
                if command == .zoomIn {
                    let limit = options.graphics == nil ? "a cell shows one pixel" : "a screen pixel shows one pixel"
                    update { $0.notice = Notice("as close as \($0.selectedImage?.name ?? "the image") goes: \(limit)") }
                }
                return
            }
            update { $0.viewport = zoomed }
        case .nextPage, .previousPage:
            guard case .loaded(let shown) = state.phase, shown.facts.url == state.selectedImage?.url, shown.facts.pageCount > 1
            else { return }
            let count = shown.facts.pageCount
            let page = state.page + (command == .nextPage ? 1 : -1)
            guard (0..<count).contains(page) else {
                update { $0.notice = Notice(command == .nextPage ? "the last page (\(count) of \(count))" : "the first page") }
                return
            }
            // Pages differ in size: each starts fitted.
            update {
                $0.page = page
                $0.viewport = .fit
            }
        case .pan(let dx, let dy):
            guard !state.viewport.isFit, let size = shownImageSize() else { return }
            let panned = state.viewport.panned(
                dx: Double(dx) / 4, dy: Double(dy) / 4, width: Double(size.width), height: Double(size.height),
                boxAspect: renderOptions().boxAspect)
            guard panned != state.viewport else { return }
            update { $0.viewport = panned }
        default:
            return
        }
        requestSelected(policy: .useCache)
    }

    /// After the box changed shape: the view's zoom within what the new box allows, its region inside the image.
    func keepViewInBounds() {
        guard let size = shownImageSize() else { return }
        let options = renderOptions()
        let maximum = options.maximumZoom(width: size.width, height: size.height)
        let kept = state.viewport.zoomed(
            by: 1, maximum: maximum, width: Double(size.width), height: Double(size.height), boxAspect: options.boxAspect)
        if kept != state.viewport { update { $0.viewport = kept } }
    }

    /// The upright pixel size of the image on screen; nil until it is known.
    private func shownImageSize() -> (width: Int, height: Int)? {
        guard case .loaded(let shown) = state.phase, shown.facts.url == state.selectedImage?.url else { return nil }
        return (shown.facts.width, shown.facts.height)
    }
}
