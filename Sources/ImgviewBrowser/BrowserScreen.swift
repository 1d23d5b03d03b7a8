import ImgviewImaging
import ImgviewPipeline
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Composes the browser's screen for a state: tab strip, preview and metadata boxes, status
/// line, overlays, or the too-small message. Pure: the same state gives the same frame.
public struct BrowserScreen: Sendable {
    /// Frames of the loading spinner; the view advances `spinnerFrame` while something loads.
    public static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// The help overlay's lines: the actions in these groups, each with its keys as bound now.
    public static let helpGroups: [(actions: [BrowserAction], meaning: String)] = [
        ([.previous, .next], "previous / next tab (also the mouse wheel)"),
        ([.first, .last], "first / last tab"),
        ([.pageBack, .pageForward], "a strip's width of tabs back / forward"),
        ([.find], BrowserAction.find.meaning),
        ([.fullWidth], BrowserAction.fullWidth.meaning),
        ([.zoomIn, .zoomOut, .zoomFit], "zoom in / out around the centre / the whole image"),
        ([.panLeft, .panDown, .panUp, .panRight], "pan a zoomed view left / down / up / right"),
        ([.reload, .stop], "reload, bypassing the caches / stop loading"),
        ([.previousPage, .nextPage], "previous / next page of a TIFF or HEIF of several"),
        ([.mode], BrowserAction.mode.meaning),
        ([.cache], BrowserAction.cache.meaning),
        ([.pause], BrowserAction.pause.meaning),
        ([.mark, .markAll, .invertMarks], "mark this image / all (again: none) / invert"),
        ([.save], BrowserAction.save.meaning),
        ([.copy, .open], "copy the marked paths (or this one) / open them in the desktop's viewer"),
        ([.trash, .undo], "to the trash (marked, or this one) / put back"),
        ([.keyHandler], "then a key: the key-handler, given the marked paths"),
        ([.grid], BrowserAction.grid.meaning),
        ([.slideshow], BrowserAction.slideshow.meaning),
        ([.order], BrowserAction.order.meaning),
        ([.help], BrowserAction.help.meaning),
        ([.quit], "quit (Esc closes a panel first; Ctrl-C quits)"),
    ]

    /// The keys as the help overlay lists them for `keymap`: keys, then what they do; digits and
    /// Ctrl-Z, which cannot be bound, are always there.
    public static func helpLines(for keymap: Keymap) -> [(String, String)] {
        var lines: [(String, String)] = []
        for (actions, meaning) in helpGroups {
            var keys = actions.map { keymap.label(for: $0) }
            guard keys.contains(where: { !$0.isEmpty }) else { continue }
            // A long list of keys (the pan keys and their Shift+arrows): each action's first key.
            if keys.joined(separator: " / ").count > 20 {
                keys = actions.map { keymap.keys(for: $0).first?.label ?? "" }
            }
            lines.append((keys.map { $0.isEmpty ? "-" : $0 }.joined(separator: " / "), meaning))
            if actions == [.find] { lines.append(("1 … 9", "go to tab 1 … 9; more digits for tab 10 on")) }
        }
        lines.append(("Ctrl-Z", "suspend (fg comes back)"))
        return lines
    }

    public var state: BrowserState
    /// Which spinner frame to draw while loading.
    public var spinnerFrame: Int
    /// For "fresh for 29m": the time the frame is composed at.
    public var now: Date

    public init(state: BrowserState, spinnerFrame: Int = 0, now: Date = Date()) {
        self.state = state
        self.spinnerFrame = spinnerFrame
        self.now = now
    }

    /// Whether drawing this state needs the spinner to move.
    public static func isAnimated(_ state: BrowserState) -> Bool {
        if case .loading = state.phase { return true }
        return state.isLoadingMorePages
    }

    public func compose() -> ScreenFrame {
        let size = state.terminalSize
        var frame = ScreenFrame(columns: size.columns, rows: size.rows)
        let layout = state.layout
        guard layout.fits else {
            drawTooSmall(into: &frame)
            return frame
        }
        drawTabStrip(into: &frame)
        if state.grid != nil {
            drawGrid(into: &frame, layout: layout)
        } else {
            drawPreview(into: &frame, layout: layout)
        }
        if layout.showsMetadata { drawMetadata(into: &frame, layout: layout) }
        drawStatusLine(into: &frame, layout: layout)
        switch state.overlay {
        case .help: drawHelp(into: &frame, layout: layout)
        case .cache(let overview): drawCache(overview, into: &frame, layout: layout)
        case nil: break
        }
        return frame
    }

    // MARK: Parts

    private func drawTooSmall(into frame: inout ScreenFrame) {
        let size = state.terminalSize
        let minimum = BrowserLayout.minimumSize
        let lines = [
            "terminal too small: \(size.columns)×\(size.rows)",
            "imgview needs \(minimum.columns)×\(minimum.rows)", "q quits",
        ]
        let top = max(0, (size.rows - lines.count) / 2)
        for (offset, line) in lines.enumerated() {
            let text = DisplayWidth.truncated(line, to: size.columns)
            frame.put(text, column: max(0, (size.columns - DisplayWidth.of(text)) / 2), row: top + offset)
        }
    }

    private func drawTabStrip(into frame: inout ScreenFrame) {
        let width = frame.columns
        let placement = TabStripPlacement(state: state, columns: width, spinner: spinnerCharacter)
        let titleEnd = frame.put(TabStripPlacement.title, column: 0, row: 0, style: .bold)
        let column = frame.put(TabStripPlacement.titleRule, column: titleEnd, row: 0, style: .dim)
        let right = placement.count
        let rightWidth = DisplayWidth.of(right)
        let stripWidth = placement.width
        let strip = placement.strip
        if strip.hiddenBefore { frame.put("‹", column: column, row: 0, style: .bold) }
        for tab in strip.tabs {
            frame.put(
                tab.label, column: column + tab.column, row: 0, style: tab.isSelected ? [.reverse, .bold] : [],
                limit: column + stripWidth)
        }
        if strip.hiddenAfter { frame.put("›", column: column + stripWidth - 1, row: 0, style: .bold) }
        frame.put(right, column: width - rightWidth, row: 0, style: .dim)
    }

    private func drawPreview(into frame: inout ScreenFrame, layout: BrowserLayout) {
        let box = layout.previewBox
        var title = "preview · \(state.mode.rawValue)"
        if !layout.showsMetadata, let image = state.selectedImage { title += " · \(image.name)" }
        if !state.viewport.isFit { title += " · ×\(StatusHints.zoomText(state.viewport.zoom))" }
        frame.box(column: box.column, row: box.row, width: box.width, height: box.height, title: title)
        let area = layout.previewArea
        switch state.phase {
        case .idle:
            break
        case .loading(_, _, let partial?):
            // What has arrived so far; the status line says how much.
            place(partial.grid, graphics: partial.graphics, in: area, into: &frame)
        case .loading:
            let name = state.selectedImage?.name ?? ""
            let percent = state.phase.percent.map { " \($0)%" } ?? ""
            centre(["loading \(name)…\(percent)"], in: area, into: &frame, style: .dim)
        case .loaded(let shown):
            if let grid = shown.grid {
                place(grid, graphics: shown.graphics, in: area, into: &frame)
            } else {
                centre(["rendering…"], in: area, into: &frame, style: .dim)
            }
        case .failed:
            // The reason is in the status line, on one line.
            centre(["could not show \(state.selectedImage?.name ?? "image")", "", "r tries again"], in: area, into: &frame, style: .bold)
        case .cancelled:
            centre(["stopped", "r loads it again"], in: area, into: &frame, style: .dim)
        }
    }

    /// `grid` centred in `area`, clipped to it; a pixel preview's `graphics` over its blank
    /// cells, unless a panel covers the panes (the image is taken away while it is open) or the
    /// pixels would not fit in the area.
    private func place(_ grid: CellGrid, graphics: GraphicsPreview?, in area: Rectangle, into frame: inout ScreenFrame) {
        let column = area.column + max(0, (area.width - grid.columns) / 2)
        let row = area.row + max(0, (area.height - grid.rows) / 2)
        frame.place(clipped(grid, to: area), column: column, row: row)
        guard let graphics, state.overlay == nil, graphics.layout.columns <= area.width, graphics.layout.rows <= area.height else {
            return
        }
        frame.graphic = PlacedGraphic(column: column, row: row, preview: graphics)
    }

    /// The grid: a cell per image, its thumbnail (text, or pixels placed over blank cells) fitted
    /// and centred over its name; the selected name in reverse, a marked one with a check, a
    /// failed cell with a cross.
    private func drawGrid(into frame: inout ScreenFrame, layout: BrowserLayout) {
        guard let grid = state.grid, let gridLayout = state.gridLayout else { return }
        let box = layout.previewBox
        let count = state.images.count
        let visible = gridLayout.visible(firstRow: grid.firstRow, count: count)
        var title = "grid · \(state.mode.rawValue) · \(grid.thumbnailPixels) px"
        if !visible.isEmpty { title += " · \(visible.lowerBound + 1)–\(visible.upperBound) of \(count)" }
        frame.box(column: box.column, row: box.row, width: box.width, height: box.height, title: title)
        for index in visible {
            guard let cell = gridLayout.imageBox(of: index, firstRow: grid.firstRow) else { continue }
            let image = state.images[index]
            switch grid.cells[image.urlString] {
            case .loaded(let preview)? where preview.graphics == nil:
                let picture = clipped(preview.grid, to: cell)
                frame.place(
                    picture, column: cell.column + max(0, (cell.width - picture.columns) / 2),
                    row: cell.row + max(0, (cell.height - picture.rows) / 2))
            case .loaded(let preview)?:
                // Pixels over the cell's blank cells, unless a panel covers the grid (they are
                // taken away while it is open); a picture of a larger size waits for its own.
                guard let graphics = preview.graphics, graphics.layout.columns <= cell.width, graphics.layout.rows <= cell.height
                else {
                    frame.put("·", column: cell.column + cell.width / 2, row: cell.row + cell.height / 2, style: .dim)
                    break
                }
                let column = cell.column + (cell.width - graphics.layout.columns) / 2
                let row = cell.row + (cell.height - graphics.layout.rows) / 2
                if state.overlay == nil { frame.graphics.append(PlacedGraphic(column: column, row: row, preview: graphics)) }
            case .failed?:
                let red: TerminalColor = state.colors != .none ? .indexed(9) : .default
                frame.put("✗", column: cell.column + cell.width / 2, row: cell.row + cell.height / 2, style: .bold, foreground: red)
            case .loading?, nil:
                frame.put("·", column: cell.column + cell.width / 2, row: cell.row + cell.height / 2, style: .dim)
            }
            let isSelected = index == state.selectedIndex
            let mark = state.isMarked(image) ? "✓ " : ""
            let name = mark + DisplayWidth.elidedMiddle(TerminalText.sanitized(image.name), to: cell.width - DisplayWidth.of(mark))
            let labelRow = cell.row + cell.height
            if isSelected { frame.fill(" ", column: cell.column, row: labelRow, count: cell.width, style: .reverse) }
            frame.put(
                name, column: cell.column + max(0, (cell.width - DisplayWidth.of(name)) / 2), row: labelRow,
                style: isSelected ? [.reverse, .bold] : [], limit: cell.column + cell.width)
        }
    }

    private func drawMetadata(into frame: inout ScreenFrame, layout: BrowserLayout) {
        let box = layout.metadataBox
        let image = state.selectedImage
        frame.box(
            column: box.column, row: box.row, width: box.width, height: box.height, title: image?.name ?? "", titleStyle: .bold)
        let area = box.inset(by: 1)
        let valueWidth = max(0, area.width - 9)
        var rows: [(String, String)] = []
        if let image {
            if let title = image.title { rows.append(("title", title)) }
            rows.append(("url", DisplayWidth.elidedMiddle(TerminalText.sanitized(image.url.absoluteString), to: valueWidth)))
        }
        switch state.phase {
        case .idle:
            break
        case .loading(let received, let expected, _):
            let total = expected.map { " of \(ByteCount.format($0))" } ?? ""
            rows.append(("status", "loading"))
            rows.append(("bytes", "\(ByteCount.format(received))\(total)"))
        case .loaded(let shown):
            let facts = shown.facts
            rows.append(("format", "\(facts.format.displayName) \(facts.sizeText)"))
            rows.append(("bytes", ByteCount.format(facts.byteCount)))
            rows.append(("source", facts.source.displayName))
            rows.append(("fetched", Self.format(facts.fetchTime)))
            if let decodeTime = facts.decodeTime { rows.append(("decoded", Self.format(decodeTime))) }
            rows.append(("cache", cacheText(facts.cacheState)))
            if facts.animation != nil { rows.append(("frames", facts.framesShortText)) }
            if let profile = facts.colorProfile { rows.append(("colour", profile.name)) }
            if facts.pageCount > 1 { rows.append(("page", "\(state.page + 1) of \(facts.pageCount)  [ ]")) }
            if let frames = shown.preview?.animation?.frames {
                rows.append(("frame", "\(shown.frame + 1) of \(frames.count)\(state.isPaused ? " · paused" : "")"))
            }
            if let warning = shown.warning { rows.append(("warning", warning)) }
        case .failed:
            rows.append(("status", "failed"))
        case .cancelled:
            rows.append(("status", "stopped"))
        }
        var row = area.row
        for (label, value) in rows where row < area.row + area.height {
            frame.put(label, column: area.column + 1, row: row, style: .dim, limit: area.column + area.width)
            frame.put(
                DisplayWidth.truncated(TerminalText.sanitized(value), to: valueWidth), column: area.column + 9, row: row,
                limit: area.column + area.width)
            row += 1
        }
    }

    private func drawStatusLine(into frame: inout ScreenFrame, layout: BrowserLayout) {
        let row = layout.statusRow
        let right = Self.statusRight(state, spinner: spinnerCharacter)
        let rightWidth = DisplayWidth.of(right)
        let leftWidth = Self.statusTextWidth(state)
        let red: TerminalColor = state.colors != .none ? .indexed(9) : .default
        if let prompt = state.prompt {
            let column = frame.put(
                " " + DisplayWidth.truncated(TerminalText.sanitized(prompt.line), to: leftWidth), column: 0, row: row, style: .bold)
            // Where the next character goes, since the terminal's own cursor is hidden.
            if DisplayWidth.of(prompt.text) < leftWidth, prompt.kind == .find, !prompt.hasNoMatch {
                frame.put(" ", column: column, row: row, style: .reverse)
            }
        } else if let notice = state.notice {
            frame.put(
                " " + DisplayWidth.truncated(notice.text, to: leftWidth), column: 0, row: row, style: notice.isError ? [.bold] : [],
                foreground: notice.isError ? red : .default)
        } else if let message = Self.failure(of: state) {
            frame.put(
                " " + DisplayWidth.truncated(TerminalText.sanitized(message), to: leftWidth), column: 0, row: row, style: .bold,
                foreground: red)
        } else {
            frame.put(DisplayWidth.truncated(StatusHints(state: state).text, to: leftWidth + 1), column: 0, row: row, style: .dim)
        }
        frame.put(right, column: frame.columns - rightWidth, row: row, style: .bold)
    }

    /// The modes `m` goes through, the current one in brackets: "[sixel] → blocks → ascii".
    public static func modeCycle(_ state: BrowserState) -> String {
        state.modes.map { $0 == state.mode ? "[\($0.rawValue)]" : $0.rawValue }.joined(separator: " → ")
    }

    /// Whether the status line shows the key hints (nothing else takes it: a prompt, a notice, an error).
    public static func statusShowsHints(_ state: BrowserState) -> Bool {
        if state.prompt != nil || state.notice != nil { return false }
        return failure(of: state) == nil
    }

    /// Why the selected image cannot be shown, if it cannot: in the grid, its cell's reason.
    static func failure(of state: BrowserState) -> String? {
        if state.grid != nil {
            guard case .failed(let message)? = state.selectedGridCell else { return nil }
            return message
        }
        guard case .failed(let message) = state.phase else { return nil }
        return message
    }

    /// How many columns the status line's left part may use (after its leading space).
    public static func statusTextWidth(_ state: BrowserState) -> Int {
        max(0, state.terminalSize.columns - DisplayWidth.of(statusRight(state, spinner: spinner[0])) - 2)
    }

    /// The status line's right end: progress while loading, the slideshow, how many are marked.
    private static func statusRight(_ state: BrowserState, spinner: Character) -> String {
        var parts: [String] = []
        if case .loading = state.phase { parts.append("\(spinner) \(state.phase.percent.map { "\($0)%" } ?? "loading")") }
        switch state.slideshow.status {
        case .running: parts.append("▶ \(Slideshow.text(state.slideshow.interval))")
        case .paused: parts.append("slideshow paused")
        case .off: break
        }
        if !state.marks.isEmpty { parts.append("\(state.marks.count) marked") }
        return parts.isEmpty ? "" : parts.joined(separator: " · ") + " "
    }

    private func drawHelp(into frame: inout ScreenFrame, layout: BrowserLayout) {
        let help = Self.helpLines(for: state.keymap)
        let keyWidth = min(22, (help.map { DisplayWidth.of($0.0) }.max() ?? 0) + 2)
        var lines = help.map { keys, meaning in
            DisplayWidth.truncated(keys, to: keyWidth - 2) + String(repeating: " ", count: max(2, keyWidth - DisplayWidth.of(keys)))
                + meaning
        }
        let footer = ["", "preview modes here: " + Self.modeCycle(state), "any key closes this panel"]
        // Too many for the screen's height: two columns, each cut to half the width if it must be
        // (the keys stay whole), and what still does not fit cut short; the footer always shows.
        let room = max(1, layout.size.rows - 4 - footer.count)
        let widest = lines.map(DisplayWidth.of).max() ?? 0
        let columnWidth = min(widest, (layout.size.columns - 8 - 3) / 2)
        if lines.count > room, columnWidth >= keyWidth + 12 {
            let half = (lines.count + 1) / 2
            lines = (0..<half).map { row in
                let left = DisplayWidth.truncated(lines[row], to: columnWidth)
                guard row + half < lines.count else { return left }
                let right = DisplayWidth.truncated(lines[row + half], to: columnWidth)
                return left + String(repeating: " ", count: columnWidth - DisplayWidth.of(left) + 3) + right
            }
        }
        if lines.count > room {
            lines = Array(lines.prefix(room - 1)) + ["… \(lines.count - room + 1) more in a taller window"]
        }
        panel(title: "keys", lines: lines + footer, into: &frame, layout: layout)
    }

    private func drawCache(_ overview: CacheOverview, into frame: inout ScreenFrame, layout: BrowserLayout) {
        let heading = [
            "\(overview.rows.count) entr\(overview.rows.count == 1 ? "y" : "ies"), \(ByteCount.format(overview.totalBytes)) of \(ByteCount.format(overview.limitBytes))",
            DisplayWidth.elidedMiddle(TerminalText.sanitized(overview.directory), to: layout.size.columns - 10), "",
        ]
        let footer = ["", overview.rows.isEmpty ? "any key closes this panel" : "↑ ↓ PgUp PgDn select  Del removes  Esc closes"]
        let lines = overview.rows.map { row in
            let name = TerminalText.sanitized(row.name ?? "-").padded(toLength: 12)
            let bytes = ByteCount.format(row.byteCount).padded(toLength: 9)
            let format = row.format.displayName.padded(toLength: 5)
            let fresh = (row.isFresh ? "fresh" : "stale").padded(toLength: 6)
            return name + " " + bytes + format + " " + fresh + TerminalText.sanitized(row.url.absoluteString)
        }
        guard !lines.isEmpty else {
            panel(title: "disk cache", lines: heading + ["the cache is empty"] + footer, into: &frame, layout: layout)
            return
        }
        // The rows scroll so the selected one shows; the heading and the footer stay.
        let room = max(1, Self.cacheRowsShown(in: layout))
        let selected = min(max(0, overview.selectedRow), lines.count - 1)
        let top = min(max(0, selected - room / 2), max(0, lines.count - room))
        let shown = Array(lines[top..<min(lines.count, top + room)])
        var scrolled = heading + shown
        if lines.count > room { scrolled[heading.count - 1] = "rows \(top + 1)–\(top + shown.count) of \(lines.count)" }
        panel(
            title: "disk cache", lines: scrolled + footer, into: &frame, layout: layout,
            highlighted: heading.count + selected - top)
    }

    /// How many cache rows the panel has room for at this size.
    public static func cacheRowsShown(in layout: BrowserLayout) -> Int {
        // The panel's border (2), the heading (3) and the footer (2).
        layout.size.rows - 2 - 2 - 3 - 2
    }

    // MARK: Pieces

    private var spinnerCharacter: Character {
        Self.spinner[spinnerFrame % Self.spinner.count]
    }

    /// A bordered panel over the middle of the screen, cleared underneath; `highlighted` is a line drawn in reverse.
    private func panel(title: String, lines: [String], into frame: inout ScreenFrame, layout: BrowserLayout, highlighted: Int? = nil) {
        let size = layout.size
        let width = min(size.columns - 4, max(40, (lines.map(DisplayWidth.of).max() ?? 0) + 4))
        let height = min(size.rows - 2, lines.count + 2)
        let column = (size.columns - width) / 2
        let top = max(1, (size.rows - height) / 2)
        for row in top..<(top + height) { frame.fill(" ", column: column, row: row, count: width) }
        frame.box(column: column, row: top, width: width, height: height, title: title, titleStyle: .bold)
        var shown = Array(lines.prefix(height - 2))
        if lines.count > height - 2, let last = shown.indices.last {
            shown[last] = "… \(lines.count - height + 3) more"
        }
        for (offset, line) in shown.enumerated() {
            let text = DisplayWidth.truncated(line, to: width - 4)
            let style: TextStyle = offset == highlighted ? .reverse : []
            if offset == highlighted { frame.fill(" ", column: column + 1, row: top + 1 + offset, count: width - 2, style: style) }
            frame.put(text, column: column + 2, row: top + 1 + offset, style: style, limit: column + width - 1)
        }
    }

    private func centre(_ lines: [String], in area: Rectangle, into frame: inout ScreenFrame, style: TextStyle) {
        let top = area.row + max(0, (area.height - lines.count) / 2)
        for (offset, line) in lines.prefix(area.height).enumerated() {
            let text = DisplayWidth.truncated(TerminalText.sanitized(line), to: area.width)
            let column = area.column + max(0, (area.width - DisplayWidth.of(text)) / 2)
            frame.put(text, column: column, row: top + offset, style: style, limit: area.column + area.width)
        }
    }

    private func clipped(_ grid: CellGrid, to area: Rectangle) -> CellGrid {
        guard grid.columns > area.width || grid.rows > area.height else { return grid }
        let columns = min(grid.columns, area.width)
        let rows = min(grid.rows, area.height)
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        for y in 0..<rows {
            for x in 0..<columns { cells.append(grid[x, y]) }
        }
        return CellGrid(columns: max(columns, 0), rows: max(rows, 0), cells: cells)
    }

    private func cacheText(_ state: CacheStatus) -> String {
        switch state {
        case .notCached: "not cached"
        case .fresh(let until): "fresh for \(DurationText.format(until.timeIntervalSince(now)))"
        case .stale(let since): "stale for \(DurationText.format(now.timeIntervalSince(since)))"
        }
    }

    /// "12.3 ms", "1.24 s".
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.seconds * 1000
        if milliseconds < 1 { return "<1 ms" }
        if milliseconds < 100 { return String(printf: "%.1f ms", milliseconds) }
        if milliseconds < 1000 { return String(printf: "%.0f ms", milliseconds) }
        return String(printf: "%.2f s", milliseconds / 1000)
    }
}
