internal import CNCurses
import ImgviewBrowser
import ImgviewImaging
import ImgviewProcess
import ImgviewSupport
import ImgviewTerminalDetection
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal under ncurses, from `start` until `end`: draws frames, reads keys, knows its size
/// and colours. The only type that calls ncurses, always on the main thread (ncurses is not
/// thread-safe).
@MainActor
public final class CursesTerminal {
    /// How many colours previews may use here.
    public let colorMode: ColorMode
    /// ncurses, opened when the first browser starts.
    private let curses: imgview_ncurses
    /// The same table where it lives, for the shim's helpers.
    private let cursesTable: UnsafePointer<imgview_ncurses>
    private var lastFrame: ScreenFrame?
    /// Allocated colour pairs by `(foreground + 1) * 257 + background + 1`; 0 when not yet asked for.
    private var pairs = [Int32](repeating: 0, count: 257 * 257)
    private var allocatedPairs = 0
    /// Pairs of 24-bit colours on a direct-colour terminal, which a flat table cannot hold.
    private var directPairs: [Int64: Int32] = [:]
    private var isDirectColor = false
    /// Whether the pairs were already reset while drawing this frame: never twice, or a frame
    /// with more colours than pairs would reset for ever.
    private var didResetThisFrame = false
    /// Set when the pairs were reset mid-frame: cells drawn before then must be drawn again.
    private var pairsWereReset = false
    private var isActive = true
    /// Which cells of the last frame were written directly, not by ncurses (see `draw`).
    private var lastDrawnDirectly: [Bool] = []
    /// Keys ncurses did not decode, and mouse reports, arrive as characters; this puts them together.
    private var keyDecoder = BrowserKeyDecoder()
    /// The pixel images on screen, drawn beside ncurses (which knows only the blank cells under them).
    private var placement: GraphicsPlacement
    /// What puts the terminal back should the process end without `end` (a crash, a second signal).
    private var restoration: RestorationHandle?
    /// Inside tmux with images passed through it: the pane (`%3`), for `TmuxWatcher` to follow.
    public let tmuxPane: String?
    /// Where that pane is in the outer terminal and whether it is shown, as tmux last said.
    private var tmuxGeometry: TmuxPaneGeometry?

    /// Takes over the terminal on stdin/stdout; throws when they are not a terminal ncurses can drive.
    ///
    /// - Parameter graphics: what the terminal said about pixels: how to take an image away
    ///   (tmux passthrough), and whether changes can be shown at once (synchronized output).
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, graphics: GraphicsTerminal = GraphicsTerminal()
    ) throws(TerminalError) {
        guard Self.hasTerminal else { throw .notATerminal }
        cursesTable = try CursesLibrary.functions()
        curses = cursesTable.pointee
        let pane = graphics.passthrough ? environment["TMUX_PANE"].flatMap { $0.isEmpty ? nil : $0 } : nil
        let geometry = pane.flatMap(TmuxPane.geometry(of:))
        tmuxPane = pane
        tmuxGeometry = geometry
        placement = GraphicsPlacement(terminal: graphics, paneOrigin: geometry?.origin)
        // UTF-8 block and box characters need the user's locale before ncurses starts.
        _ = imgview_setlocale_all()
        // The tty modes from before ncurses changes them.
        var savedModes = termios()
        let hasModes = tcgetattr(STDIN_FILENO, &savedModes) == 0
        // newterm, unlike initscr, returns nil instead of exiting when TERM is unknown.
        guard let output = fdopen(STDOUT_FILENO, "w"), let input = fdopen(STDIN_FILENO, "r"),
            let screen = curses.newterm(nil, output, input)
        else {
            throw .unsupported(environment["TERM"] ?? "")
        }
        _ = curses.set_term(screen)
        // Raw mode: Ctrl-C arrives as a key, so quitting always runs our clean-up.
        _ = curses.raw()
        _ = curses.noecho()
        _ = curses.nonl()
        _ = curses.keypad(curses.stdscr, true)
        _ = curses.nodelay(curses.stdscr, true)
        _ = curses.set_escdelay(25)
        _ = curses.curs_set(0)
        _ = curses.leaveok(curses.stdscr, true)
        var colors = ColorMode.none
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        if curses.has_colors(), !noColor {
            _ = curses.start_color()
            _ = curses.use_default_colors()
            let count = curses.colors
            // A direct-colour terminal (TERM=*-direct) numbers colours 8 and up as 24-bit RGB.
            isDirectColor = count > 256
            colors = count > 256 ? .full : count == 256 ? .twoFiftySix : count >= 16 ? .sixteen : .none
        }
        colorMode = colors
        restoration = ProcessSignals.restoring(
            TerminalRestoration(bytes: Self.resetBytes(cursesTable), modes: hasModes ? (STDIN_FILENO, savedModes) : nil))
        // ncurses would decode a report itself only where terminfo names the SGR encoding: leave
        // them all to BrowserKeyDecoder, which reads them the same way on every terminal.
        _ = curses.keyok(imgview_key_mouse(), false)
        writeToTerminal(BrowserKeyDecoder.mouseReportingOn)
    }

    /// Whether stdin and stdout are a terminal the browser can take over.
    public nonisolated static var hasTerminal: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// The terminal's size now, as ncurses knows it.
    public var size: TerminalSize {
        TerminalSize(columns: Int(curses.getmaxx(curses.stdscr)), rows: Int(curses.getmaxy(curses.stdscr)))
    }

    /// Tells ncurses the terminal's new size (read from the kernel) and forgets the last frame.
    public func adoptKernelSize() -> TerminalSize {
        var window = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 {
            _ = curses.resizeterm(Int32(window.ws_row), Int32(window.ws_col))
        }
        lastFrame = nil
        return size
    }

    /// Draws `frame`, writing only the cells that differ from the last one drawn.
    ///
    /// Cells in colours ncurses cannot give them here (24-bit colour without a direct-colour
    /// terminfo, bright colours on an 8-colour one, more colour pairs than terminfo has) are
    /// blanks to ncurses and are written after its refresh with their own SGR escapes: the preview
    /// keeps the colours `show` would print on this terminal.
    ///
    /// The frame's pixel images are written after that, and those it no longer has are taken away
    /// before ncurses draws (`GraphicsPlacement`), all in one synchronized update where the
    /// terminal has them.
    public func draw(_ frame: ScreenFrame) {
        guard isActive else { return }
        let previous = lastFrame.flatMap { $0.columns == frame.columns && $0.rows == frame.rows ? $0 : nil }
        if previous == nil {
            didResetThisFrame = false
            _ = curses.werase(curses.stdscr)
            // Cells written directly are blanks to ncurses, which would not clear them: clear all.
            if lastDrawnDirectly.contains(true) { _ = curses.clearok(curses.stdscr, true) }
        }
        var drawnDirectly = [Bool](repeating: false, count: frame.cells.count)
        var direct: [(column: Int, row: Int)] = []
        // Where ncurses will write, to know which images on screen it writes over: each line from
        // its first changed cell to its last, unchanged ones between included when that is shorter.
        var written: [Int: (first: Int, last: Int)] = [:]
        for row in 0..<frame.rows {
            // Rows are visited in order, so this row's direct cells are the end of `direct`.
            let rowStart = direct.count
            var changed: (first: Int, last: Int)?
            // A cell written directly last time that ncurses draws now: ncurses believes a blank is
            // there, so the whole line must be thrown away and drawn again, direct cells included.
            var lineIsStale = false
            for column in 0..<frame.columns {
                let index = row * frame.columns + column
                let cell = frame[column, row]
                if let previous, previous[column, row] == cell {
                    drawnDirectly[index] = lastDrawnDirectly[index]
                    continue
                }
                if cell.isContinuation { continue }
                changed = (changed?.first ?? column, column)
                drawnDirectly[index] = !put(cell, column: column, row: row)
                if drawnDirectly[index] {
                    direct.append((column, row))
                } else if previous != nil, lastDrawnDirectly[index] {
                    lineIsStale = true
                }
            }
            if lineIsStale {
                _ = curses.wredrawln(curses.stdscr, Int32(row), 1)
                direct.removeSubrange(rowStart...)
                direct += (0..<frame.columns).filter { drawnDirectly[row * frame.columns + $0] }.map { ($0, row) }
            }
            if lineIsStale {
                written[row] = (0, frame.columns - 1)
            } else if let changed {
                written[row] = changed
            }
        }
        if pairsWereReset {
            pairsWereReset = false
            lastFrame = nil
            draw(frame)
            return
        }
        // tmux drops passthrough from a pane it does not show (or shows it over another window);
        // an image tmux draws itself (its own sixel) it keeps, and shows with the pane, as it keeps
        // the text of one shown by placeholders whose data the terminal already has.
        let hidden = tmuxGeometry?.isVisible == false
        let tmuxKeepsSixel = placement.terminal.tmuxDrawsSixel
        let graphics =
            hidden
            ? frame.graphics.filter { !TmuxPlacement.isPassedThrough($0.preview.bytes) || placement.placed.contains($0) }
            : frame.graphics
        let linesMove = previous != nil && !(placement.placed.isEmpty && graphics.isEmpty) && refreshMayMoveLines()
        let pixels = placement.update(
            to: graphics, cleared: previous == nil, linesMove: linesMove,
            textOverwrites: { area in
                (area.row..<(area.row + area.height)).contains { row in
                    // tmux drops an image of its own when any line it is on is erased or has cells
                    // inserted or deleted, beside it too, which ncurses may do for any change there.
                    tmuxKeepsSixel
                        ? written[row] != nil : written[row].map { $0.first < area.column + area.width && $0.last >= area.column } ?? false
                }
            }, screen: TerminalSize(columns: frame.columns, rows: frame.rows))
        if !pixels.before.isEmpty { writeToTerminal(pixels.before) }
        _ = curses.wrefresh(curses.stdscr)
        if !direct.isEmpty { writeToTerminal(Self.directText(for: direct, in: frame)) }
        if !pixels.after.isEmpty { writeToTerminal(pixels.after) }
        lastFrame = frame
        lastDrawnDirectly = drawnDirectly
    }

    /// Whether ncurses' next refresh may move lines on the terminal rather than write them: its
    /// scrolling optimization (`_nc_hash_map`) anchors a move on a line whose text is on the
    /// screen once and in the new frame once, at another row, grows the moved block over equal
    /// neighbours, and moves it by scrolling a region of the terminal (a grid scrolled by a row is
    /// such a change). Pixels painted in those cells move with them or scroll off, which the
    /// frame's cell-by-cell difference cannot see. No anchor, no move. Asked of ncurses' own
    /// screens, compared as it compares them (cell by cell, byte for byte): what it believes the
    /// terminal shows (a copy of `curscr`: reading it in place would move the cursor it keeps for
    /// the terminal's) and what it is about to draw (`stdscr`, whose cursor it does not use: `leaveok`).
    private func refreshMayMoveLines() -> Bool {
        guard let next = curses.stdscr, let shown = curses.dupwin(curses.curscr) else { return true }
        defer { _ = curses.delwin(shown) }
        let rows = Int(curses.getmaxy(next))
        let columns = Int(curses.getmaxx(next))
        guard rows > 1, columns > 0 else { return false }
        guard Int(curses.getmaxy(shown)) >= rows, Int(curses.getmaxx(shown)) >= columns else { return true }
        var cells = [cchar_t](repeating: cchar_t(), count: columns + 1)
        func line(_ window: UnsafeMutablePointer<WINDOW>, _ row: Int) -> [UInt8] {
            _ = curses.mvwin_wchnstr(window, Int32(row), 0, &cells, Int32(columns))
            return cells.withUnsafeBytes { Array($0.prefix(columns * MemoryLayout<cchar_t>.stride)) }
        }
        let shownLines = (0..<rows).map { line(shown, $0) }
        let (cursorRow, cursorColumn) = (curses.getcury(next), curses.getcurx(next))
        let drawnLines = (0..<rows).map { line(next, $0) }
        _ = curses.wmove(next, cursorRow, cursorColumn)
        var shownCounts: [[UInt8]: Int] = [:]
        var drawnCounts: [[UInt8]: Int] = [:]
        for row in 0..<rows {
            shownCounts[shownLines[row], default: 0] += 1
            drawnCounts[drawnLines[row], default: 0] += 1
        }
        // Unique on both screens and changed at this row: the one line of that text is elsewhere now.
        return (0..<rows).contains { row in
            drawnLines[row] != shownLines[row] && drawnCounts[drawnLines[row]] == 1 && shownCounts[drawnLines[row]] == 1
        }
    }

    /// tmux moved the pane, hid it or drew it again from its own copy of the text (`TmuxWatcher`):
    /// an image passed through tmux is tmux's to neither keep nor move, so it is taken away
    /// while the pane is not shown and drawn again, where the pane now is, when it is.
    /// An image tmux draws itself (its own sixel) is tmux's to keep, hide and draw again: left alone;
    /// so is one shown by placeholders, text tmux keeps, unless its data was not sent while hidden.
    public func tmuxPaneChanged(_ geometry: TmuxPaneGeometry, redrawn: Bool) {
        guard isActive, let tmuxPane else { return }
        let previous = tmuxGeometry
        tmuxGeometry = geometry
        placement.paneOrigin = geometry.origin
        let passedThrough = { (graphic: PlacedGraphic) in TmuxPlacement.isPassedThrough(graphic.preview.bytes) }
        guard placement.placed.contains(where: passedThrough) || lastFrame?.graphics.contains(where: passedThrough) == true else {
            return
        }
        guard geometry.isVisible else {
            // A kitty image stays over whatever tmux shows now, and passthrough from this pane is
            // dropped: deleted past tmux. sixel and iTerm2 images are gone under tmux's redraw.
            let kitty = placement.placed.filter { $0.preview.graphics == .kitty && $0.isPositionedPastTmux }
            if !kitty.isEmpty {
                TmuxPane.writeToClients(of: tmuxPane, kitty.flatMap { KittyGraphicsEncoder().delete(id: $0.preview.imageID) })
            }
            placement.forget(where: \.isPositionedPastTmux)
            return
        }
        guard redrawn || previous != geometry, let frame = lastFrame else { return }
        let pixels = placement.update(
            to: frame.graphics, cleared: false, lost: \.isPositionedPastTmux, textOverwrites: { _ in false },
            screen: TerminalSize(columns: frame.columns, rows: frame.rows))
        if !pixels.isEmpty { writeToTerminal(pixels.before + pixels.after) }
    }

    /// The bytes that write `cells` of `frame` (in screen order) in place; see `DirectCellText`.
    nonisolated static func directText(for cells: [(column: Int, row: Int)], in frame: ScreenFrame) -> [UInt8] {
        var text = DirectCellText(capacity: cells.count * 24 + 16)
        for (column, row) in cells { text.append(frame[column, row], column: column, row: row) }
        return text.finished()
    }

    /// Whether stdin reports nothing to read although it woke us: the terminal hung up.
    public var inputIsClosed: Bool {
        var pending: Int32 = 0
        return ioctl(STDIN_FILENO, UInt(FIONREAD), &pending) != 0 || pending == 0
    }

    /// Every key and mouse event waiting to be read, without blocking.
    public func readKeys() -> [TerminalInput] {
        var inputs: [TerminalInput] = []
        var value: wint_t = 0
        func add(_ key: BrowserKey) {
            for output in keyDecoder.feed(key) {
                switch output {
                case .key(.character(let character)) where character.unicodeScalars.contains(where: TerminalText.isUnsafe):
                    // A control character outside any sequence: no key of the browser's.
                    continue
                case .key(let key): inputs.append(.key(key))
                case .mouse(let event): inputs.append(.mouse(event))
                }
            }
        }
        while isActive {
            let kind = curses.wget_wch(curses.stdscr, &value)
            if kind == ERR { break }
            if kind == imgview_key_code_yes() {
                if Int32(value) == imgview_key_resize() {
                    lastFrame = nil
                    inputs.append(.resized(size))
                } else if let key = Self.functionKey(Int32(value)) {
                    add(key)
                }
                continue
            }
            switch value {
            case 3: add(.interrupt)
            case 9: add(.tab)
            case 10, 13: add(.enter)
            case 8, 127: add(.backspace)
            case 26: add(.suspend)
            case 27: add(.escape)
            case 1...26:
                // The other Ctrl-letters (Ctrl-X, the key-handler's prefix): their letter.
                add(.control(Character(Unicode.Scalar(UInt8(value) + 0x60))))
            default:
                // Control characters too: one may end a sequence (BEL ends an OSC string).
                if let scalar = Unicode.Scalar(UInt32(value)) { add(.character(Character(scalar))) }
            }
        }
        for output in keyDecoder.endOfInput() {
            if case .key(let key) = output { inputs.append(.key(key)) }
        }
        return inputs
    }

    /// The key an ncurses function-key code stands for, if the browser uses it.
    private static func functionKey(_ code: Int32) -> BrowserKey? {
        switch code {
        case imgview_key_left(): .left
        case imgview_key_right(): .right
        case imgview_key_up(): .up
        case imgview_key_down(): .down
        case imgview_key_sleft(): .shiftLeft
        case imgview_key_sright(): .shiftRight
        case imgview_key_sr(): .shiftUp
        case imgview_key_sf(): .shiftDown
        case imgview_key_home(): .home
        case imgview_key_end(): .end
        case imgview_key_ppage(): .pageUp
        case imgview_key_npage(): .pageDown
        case imgview_key_btab(): .backTab
        case imgview_key_backspace(): .backspace
        case imgview_key_dc(): .delete
        case imgview_key_enter(): .enter
        case imgview_key_f(1)...imgview_key_f(12): .function(Int(code - imgview_key_f(0)))
        default: nil
        }
    }

    /// Ctrl-Z: gives the terminal back and stops the process as the shell's job control expects;
    /// returns once `fg` (SIGCONT) resumes it, with the browser's modes back. Draw a whole frame next.
    public func suspend() {
        guard isActive else { return }
        takeImageAway()
        writeToTerminal(BrowserKeyDecoder.mouseReportingOff)
        _ = curses.endwin()
        ProcessSignals.suspendJob()
        // The first refresh after endwin puts ncurses' tty modes back, but not keypad mode (endwin
        // left it, and ncurses sends it again only at its next read, after the first key already
        // came in cursor mode): sent now, so the first arrow after `fg` is an arrow.
        _ = curses.keypad(curses.stdscr, true)
        _ = curses.wrefresh(curses.stdscr)
        lastFrame = nil
        writeToTerminal(BrowserKeyDecoder.mouseReportingOn)
    }

    /// Writes `sequence` to the terminal after the frame drawn last (a request such as OSC 52).
    public func write(_ sequence: [UInt8]) {
        guard isActive else { return }
        writeToTerminal(sequence)
    }

    /// Writes `text` straight to the terminal, after whatever ncurses has queued.
    private func writeToTerminal(_ text: String) {
        writeToTerminal(Array(text.utf8))
    }

    /// Writes `bytes` straight to the terminal, after whatever ncurses has queued.
    private func writeToTerminal(_ bytes: [UInt8]) {
        // Every stdio stream, ncurses' own included, so the bytes land after what it has queued.
        fflush(nil)
        // A failure means the terminal is gone; the next read notices.
        _ = try? FileDescriptor.standardOutput.writeAll(bytes)
    }

    /// Takes the pixel image off the screen, before the terminal is given back.
    ///
    /// tmux's own sixel is dropped by tmux when the spaces are written over it, and those spaces
    /// reach the terminal only with tmux's redraw of the pane, which comes after tmux has read all
    /// that was written with them: waited for (a question tmux answers itself), so that it is the
    /// browser's screen tmux draws them on, not the one the program goes back to, whose cells are
    /// only cleared. xterm keeps a sixel's pixels under cleared cells and paints them again when
    /// its window is uncovered.
    private func takeImageAway() {
        let tmuxSixel = placement.terminal.tmuxDrawsSixel && placement.placed.contains { $0.preview.graphics == .sixel }
        let bytes = placement.remove(screen: size)
        if !bytes.isEmpty { writeToTerminal(bytes) }
        if tmuxSixel { _ = TmuxPane.cursorPosition(timeout: .milliseconds(300)) }
    }

    /// Gives the terminal back as it was: normal screen, cursor, modes.
    public func end() {
        guard isActive else { return }
        isActive = false
        takeImageAway()
        writeToTerminal(BrowserKeyDecoder.mouseReportingOff)
        _ = curses.endwin()
        restoration?.end()
        restoration = nil
    }

    /// The terminal's own strings that leave the browser's screen (read from terminfo, so call
    /// once ncurses has started): attributes reset, the cursor shown, keypad mode and the
    /// alternate screen left, the mouse off, and a new line.
    private static func resetBytes(_ curses: UnsafePointer<imgview_ncurses>) -> [UInt8] {
        var reset: [UInt8] = []
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            if let value = imgview_terminfo_string(curses, capability) { reset += Array(String(cString: value).utf8) }
        }
        return reset + BrowserKeyDecoder.mouseReportingOff + Array("\r\n".utf8)
    }

    // MARK: Drawing one cell

    /// Puts `cell` into ncurses' screen; when ncurses cannot give it its colours, puts a blank
    /// there instead and returns false: the cell is for `directText` to write.
    @discardableResult
    private func put(_ cell: StyledCell, column: Int, row: Int) -> Bool {
        var attributes = imgview_a_normal()
        if !cell.style.isEmpty {
            if cell.style.contains(.bold) { attributes |= imgview_a_bold() }
            if cell.style.contains(.reverse) { attributes |= imgview_a_reverse() }
            if cell.style.contains(.dim) { attributes |= imgview_a_dim() }
            if cell.style.contains(.underline) { attributes |= imgview_a_underline() }
        }
        let named = colorMode != .none && isNamed(cell.foreground) && isNamed(cell.background)
        let pair = named ? pair(foreground: cell.foreground, background: cell.background) : 0
        if pair == 0, cell.foreground != .default || cell.background != .default {
            Self.putCharacter(" ", column: column, row: row, attributes: imgview_a_normal(), pair: 0, curses: cursesTable)
            return false
        }
        Self.putCharacter(cell.character, column: column, row: row, attributes: attributes, pair: pair, curses: cursesTable)
        return true
    }

    /// Puts `character` into ncurses' screen. Nonisolated on purpose: a closure formed on the main
    /// actor checks that it runs there each time it is called, and this runs for every cell.
    private nonisolated static func putCharacter(
        _ character: Character, column: Int, row: Int, attributes: attr_t, pair: Int32, curses: UnsafePointer<imgview_ncurses>
    ) {
        let scalars = character.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first {
            // The common case (every preview cell): no lookup, no allocation.
            var text: (wchar_t, wchar_t) = (wchar_t(bitPattern: scalar.value), 0)
            _ = withUnsafePointer(to: &text.0) { imgview_put_cell(curses, Int32(row), Int32(column), $0, attributes, pair) }
            return
        }
        // setcchar takes one spacing character and at most four combining ones.
        let text = scalars.prefix(5).map { wchar_t(bitPattern: $0.value) } + [0]
        let drawn = text.withUnsafeBufferPointer { imgview_put_cell(curses, Int32(row), Int32(column), $0.baseAddress, attributes, pair) }
        if drawn == ERR {
            // A sequence ncurses cannot hold in one cell (a flag, a ZWJ emoji): keep its width.
            var placeholder: (wchar_t, wchar_t) = (wchar_t(UInt8(ascii: "?")), 0)
            for offset in 0..<DisplayWidth.of(character) {
                _ = withUnsafePointer(to: &placeholder.0) {
                    imgview_put_cell(curses, Int32(row), Int32(column + offset), $0, attributes, pair)
                }
            }
        }
    }

    /// Whether ncurses has a number for `color` on this terminal.
    private func isNamed(_ color: TerminalColor) -> Bool {
        color == .default || number(for: color) != -1
    }

    /// The colour pair for two colours, allocated once: a flat table indexed by both palette
    /// numbers (plus one, for the default colour), since a preview asks for thousands per frame.
    private func pair(foreground: TerminalColor, background: TerminalColor) -> Int32 {
        let fg = number(for: foreground)
        let bg = number(for: background)
        if fg == -1, bg == -1 { return 0 }
        let directKey = Int64(fg) << 32 | Int64(UInt32(bitPattern: bg))
        let slot = isDirectColor ? -1 : Int(fg + 1) * 257 + Int(bg + 1)
        let known = slot >= 0 ? pairs[slot] : directPairs[directKey] ?? 0
        if known > 0 { return known }
        if allocatedPairs >= Int(curses.colorPairs) - 1 {
            // More colours in one frame than the terminal has pairs: `draw` writes the rest directly.
            guard !didResetThisFrame else { return 0 }
            didResetThisFrame = true
            // Out of pairs: ncurses would recycle one still on screen. Start afresh and redraw all.
            curses.reset_color_pairs()
            pairs = [Int32](repeating: 0, count: pairs.count)
            directPairs = [:]
            allocatedPairs = 0
            pairsWereReset = true
        }
        let allocated = curses.alloc_pair(fg, bg)
        guard allocated > 0 else { return 0 }
        if slot >= 0 { pairs[slot] = allocated } else { directPairs[directKey] = allocated }
        allocatedPairs += 1
        return allocated
    }

    private func number(for color: TerminalColor) -> Int32 {
        switch color {
        case .default: -1
        case .indexed(let index):
            // Direct-colour terminals keep only the eight ANSI colours as palette numbers.
            Int32(index) < (isDirectColor ? 8 : curses.colors) ? Int32(index) : -1
        case .rgb(let color):
            isDirectColor ? Int32(color.red) << 16 | Int32(color.green) << 8 | Int32(color.blue) : -1
        }
    }
}

/// Something the terminal reported.
public enum TerminalInput: Sendable, Equatable {
    case key(BrowserKey)
    case mouse(MouseEvent)
    case resized(TerminalSize)
}

/// Why the browser could not take over the terminal.
public enum TerminalError: Error, Equatable, UserFacingError {
    case notATerminal
    case unsupported(String)
    /// ncurses, opened when the browser starts, is not installed (or lacks a function it needs).
    case libraryMissing(SharedLibrary.Unavailable)

    public var message: String {
        switch self {
        case .notATerminal:
            "the browser needs a terminal (stdin and stdout are not one); `imgview show NAME` prints a preview, `imgview get NAME` downloads"
        case .unsupported(let term):
            "cannot drive the terminal \(TerminalText.sanitized(term.isEmpty ? "(TERM is not set)" : "TERM=\(term)")); try TERM=xterm-256color"
        case .libraryMissing(let library):
            "the browser cannot start: \(library.summary)"
        }
    }

    /// A missing ncurses is this machine's lack, not the command line's: `missingLibrary`, as a
    /// missing libxml2 is for `page`.
    public var exitStatus: ExitStatus {
        if case .libraryMissing = self { return .missingLibrary }
        return .usage
    }
}
