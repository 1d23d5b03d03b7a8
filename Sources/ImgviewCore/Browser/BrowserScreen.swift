import Foundation

/// Composes the browser's screen for a state: tab strip, preview and metadata boxes, status
/// line, overlays, or the too-small message. Pure: the same state gives the same frame.
public struct BrowserScreen: Sendable {
    /// Frames of the loading spinner; the view advances `spinnerFrame` while something loads.
    public static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// The keys, as the status line and the help overlay list them.
    public static let keyHelp = "←/→ tab  1-9 jump  r reload  x stop  d save  m mode  c cache  ? help  q quit"

    public static let helpLines: [(String, String)] = [
        ("← → h l", "previous / next tab"),
        ("Tab S-Tab", "next / previous tab"),
        ("1 … 9", "jump to tab 1 … 9"),
        ("r", "reload, bypassing the caches"),
        ("x", "stop loading"),
        ("d", "save the image to the working folder"),
        ("m", "switch preview: blocks / ascii"),
        ("c", "show what the disk cache holds"),
        ("?", "show or hide this help"),
        ("q Esc", "quit (Esc closes a panel first)"),
    ]

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
        let layout = BrowserLayout(size: size)
        guard layout.fits else {
            drawTooSmall(into: &frame)
            return frame
        }
        drawTabStrip(into: &frame)
        drawPreview(into: &frame, layout: layout)
        drawMetadata(into: &frame, layout: layout)
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
        var column = frame.put(" imgview ", column: 0, row: 0, style: .bold)
        column = frame.put("─ ", column: column, row: 0, style: .dim)
        let count = state.images.count
        var right = "\(count)\(state.hasMorePages ? "+" : "") image\(count == 1 && !state.hasMorePages ? "" : "s") "
        if state.isLoadingMorePages { right = "\(spinnerCharacter) " + right }
        let rightWidth = DisplayWidth.of(right)
        let stripWidth = max(0, width - column - rightWidth - 1)
        let strip = TabStrip(names: state.images.lazy.map(\.name), selected: state.selectedIndex, width: stripWidth)
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
        frame.box(column: box.column, row: box.row, width: box.width, height: box.height, title: "preview · \(state.mode.rawValue)")
        let area = layout.previewArea
        switch state.phase {
        case .idle:
            break
        case .loading(_, _, let partial?):
            // What has arrived so far; the status line says how much.
            place(partial.grid, in: area, into: &frame)
        case .loading:
            let name = state.selectedImage?.name ?? ""
            let percent = state.phase.percent.map { " \($0)%" } ?? ""
            centre(["loading \(name)…\(percent)"], in: area, into: &frame, style: .dim)
        case .loaded(let shown):
            if let grid = shown.preview?.grid {
                place(grid, in: area, into: &frame)
            } else {
                centre(["rendering…"], in: area, into: &frame, style: .dim)
            }
        case .failed(let message):
            centre(
                ["could not show \(state.selectedImage?.name ?? "image")"] + wrap(message, width: area.width - 2) + ["", "r tries again"],
                in: area, into: &frame, style: .bold)
        case .cancelled:
            centre(["stopped", "r loads it again"], in: area, into: &frame, style: .dim)
        }
    }

    /// `grid` centred in `area`, clipped to it.
    private func place(_ grid: CellGrid, in area: Rectangle, into frame: inout ScreenFrame) {
        let column = area.column + max(0, (area.width - grid.columns) / 2)
        let row = area.row + max(0, (area.height - grid.rows) / 2)
        frame.place(clipped(grid, to: area), column: column, row: row)
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
            rows.append(("format", "\(facts.format.displayName) \(facts.width)×\(facts.height)"))
            rows.append(("bytes", ByteCount.format(facts.byteCount)))
            rows.append(("source", facts.source.displayName))
            rows.append(("fetched", Self.format(facts.fetchTime)))
            if let decodeTime = facts.decodeTime { rows.append(("decoded", Self.format(decodeTime))) }
            rows.append(("cache", cacheText(facts.cacheState)))
            if let warning = shown.warning { rows.append(("warning", warning)) }
        case .failed(let message):
            rows.append(("status", "failed"))
            for (offset, line) in wrap(message, width: valueWidth).enumerated() {
                rows.append((offset == 0 ? "error" : "", line))
            }
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
        var right = ""
        if case .loading = state.phase {
            right = "\(spinnerCharacter) \(state.phase.percent.map { "\($0)%" } ?? "loading") "
        }
        let rightWidth = DisplayWidth.of(right)
        let leftWidth = max(0, frame.columns - rightWidth - 2)
        if let notice = state.notice {
            frame.put(
                " " + DisplayWidth.truncated(notice.text, to: leftWidth), column: 0, row: row, style: notice.isError ? [.bold] : [],
                foreground: notice.isError && state.colors != .none ? .indexed(9) : .default)
        } else {
            frame.put(" " + DisplayWidth.truncated(Self.keyHelp, to: leftWidth), column: 0, row: row, style: .dim)
        }
        frame.put(right, column: frame.columns - rightWidth, row: row, style: .bold)
    }

    private func drawHelp(into frame: inout ScreenFrame, layout: BrowserLayout) {
        let lines = Self.helpLines.map { keys, meaning in keys.padding(toLength: 11, withPad: " ", startingAt: 0) + meaning }
        panel(title: "keys", lines: lines + ["", "any key closes this panel"], into: &frame, layout: layout)
    }

    private func drawCache(_ overview: CacheOverview, into frame: inout ScreenFrame, layout: BrowserLayout) {
        var lines = [
            "\(overview.rows.count) entr\(overview.rows.count == 1 ? "y" : "ies"), \(ByteCount.format(overview.totalBytes)) of \(ByteCount.format(overview.limitBytes))",
            DisplayWidth.elidedMiddle(TerminalText.sanitized(overview.directory), to: layout.size.columns - 10), "",
        ]
        for row in overview.rows {
            let name = (row.name ?? "-").padding(toLength: 12, withPad: " ", startingAt: 0)
            let bytes = ByteCount.format(row.byteCount).padding(toLength: 9, withPad: " ", startingAt: 0)
            let format = row.format.displayName.padding(toLength: 5, withPad: " ", startingAt: 0)
            let fresh = (row.isFresh ? "fresh" : "stale").padding(toLength: 6, withPad: " ", startingAt: 0)
            lines.append(name + " " + bytes + format + " " + fresh + TerminalText.sanitized(row.url.absoluteString))
        }
        if overview.rows.isEmpty { lines.append("the cache is empty") }
        panel(title: "disk cache", lines: lines + ["", "any key closes this panel"], into: &frame, layout: layout)
    }

    // MARK: Pieces

    private var spinnerCharacter: Character {
        Self.spinner[spinnerFrame % Self.spinner.count]
    }

    /// A bordered panel over the middle of the screen, cleared underneath.
    private func panel(title: String, lines: [String], into frame: inout ScreenFrame, layout: BrowserLayout) {
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
            frame.put(
                DisplayWidth.truncated(line, to: width - 4), column: column + 2, row: top + 1 + offset, limit: column + width - 1)
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

    /// `text` broken into lines of at most `width` columns, at spaces where it can.
    private func wrap(_ text: String, width: Int) -> [String] {
        guard width > 4 else { return [DisplayWidth.truncated(text, to: max(0, width))] }
        var lines: [String] = []
        var line = ""
        for word in TerminalText.sanitized(text).split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            while DisplayWidth.of(word) > width {
                if !line.isEmpty { lines.append(line); line = "" }
                let head = String(word.prefix(width))
                lines.append(head)
                word = String(word.dropFirst(head.count))
            }
            if line.isEmpty {
                line = word
            } else if DisplayWidth.of(line) + 1 + DisplayWidth.of(word) <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return Array(lines.prefix(6))
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
        if milliseconds < 100 { return String(format: "%.1f ms", milliseconds) }
        if milliseconds < 1000 { return String(format: "%.0f ms", milliseconds) }
        return String(format: "%.2f s", milliseconds / 1000)
    }
}
