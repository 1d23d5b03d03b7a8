import ImgviewImaging
import ImgviewSupport
import ImgviewTerminalDetection

/// Keeps the pixel images on a full-screen terminal the ones each frame places (the pane's one
/// image, or a grid's, one a cell), leaving nothing behind: what to write before the frame's text
/// is drawn (the images that go or change taken away) and after it (the new ones drawn), the whole
/// wrapped in synchronized output where the terminal has it, so the change appears at once,
/// without a blank moment between. An image that stays where it is, unchanged, is left alone,
/// unless the text library moves the lines under it (see `update`).
///
/// How an image is taken away depends on its protocol. kitty keeps images apart from the text
/// and deletes one by its id. A sixel or iTerm2 image is painted into the cells under it, and
/// text written there paints over it, so its cells are written over with spaces: blank cells in
/// the terminal's own colours, which is what the frame's blank grid under the image said they
/// were, so a text library's idea of the screen stays true. Written, not erased: xterm keeps a
/// sixel's pixels under cells that are only erased (ECH, EL) and paints them again whenever it
/// redraws that part of the window, as after a text library scrolls a region. For the same
/// reason a sixel or iTerm2 image that text was written over must be drawn again. A kitty image
/// shown by Unicode placeholders (inside tmux) is both: its data deleted by id, its text erased
/// like a sixel's cells, since ncurses believes blanks are there.
public struct GraphicsPlacement: Sendable {
    /// One thing done to the screen's image.
    public enum Step: Sendable, Equatable {
        /// A kitty image deleted, and its data freed, by its id.
        case delete(imageID: UInt32)
        /// The cells of a sixel or iTerm2 image written over with spaces.
        case erase(Rectangle)
        case draw(PlacedGraphic)
    }

    /// What to write around one frame's text.
    public struct Update: Sendable, Equatable {
        public var steps: [Step]
        /// Before the text: synchronized output begins, the old image goes.
        public var before: [UInt8]
        /// After the text: the new image, then synchronized output ends.
        public var after: [UInt8]

        public var isEmpty: Bool { steps.isEmpty }
    }

    public static let beginSynchronizedUpdate = EscapeSequence.setMode(.synchronizedOutput)
    public static let endSynchronizedUpdate = EscapeSequence.resetMode(.synchronizedOutput)

    /// The images on the screen now, as far as this program knows.
    public private(set) var placed: [PlacedGraphic] = []
    public var terminal: GraphicsTerminal
    /// Inside tmux, where the pane is in the outer terminal: an image passed through tmux is put
    /// there by its own packets, since tmux does not move the outer terminal's cursor to the pane's.
    public var paneOrigin: TmuxPaneOrigin?

    public init(terminal: GraphicsTerminal = GraphicsTerminal(), paneOrigin: TmuxPaneOrigin? = nil) {
        self.terminal = terminal
        self.paneOrigin = paneOrigin
    }

    /// What changes the screen's image into `next`, the pane's one image or none.
    ///
    /// - Parameters:
    ///   - cleared: the screen is drawn from scratch (cleared, resized, back from a suspend): the
    ///     image is drawn again whatever it was.
    ///   - textOverwrites: the frame's text will be written over cells of the shown image.
    ///   - screen: the terminal's size now; nothing is erased past its edges.
    public mutating func update(to next: PlacedGraphic?, cleared: Bool, textOverwrites: Bool, screen: TerminalSize) -> Update {
        update(to: next.map { [$0] } ?? [], cleared: cleared, textOverwrites: { _ in textOverwrites }, screen: screen)
    }

    /// What changes the screen's images into `next`: each one that goes, moves or changes is
    /// deleted (kitty, by its id) or erased (sixel, iTerm2, unless a new one paints over all its
    /// pixels), each new, moved or changed one drawn; one left where it was, unchanged and not
    /// written over, costs nothing.
    ///
    /// - Parameters:
    ///   - textOverwrites: whether the frame's text will be written over any of the cells of an
    ///     area: a sixel or iTerm2 image there is lost and drawn again.
    ///   - linesMove: the text library may move lines of the screen to draw the frame (scrolling
    ///     a region of the terminal, as ncurses does when a line's text is another line's old
    ///     text, after a grid scrolled a row). The terminal moves what is painted in those cells
    ///     with them, or drops it off the region's edge: every image goes before the text is drawn,
    ///     even one a new image of the same size would paint over where it was, and every image of
    ///     the frame is drawn after.
    ///   - lost: images on the screen that are gone or must be drawn again whatever the frame does
    ///     (those tmux passed through, after tmux drew the pane again).
    public mutating func update(
        to next: [PlacedGraphic], cleared: Bool, linesMove: Bool = false, lost isLost: (PlacedGraphic) -> Bool = { _ in false },
        textOverwrites: (Rectangle) -> Bool, screen: TerminalSize
    ) -> Update {
        let old = placed
        placed = next
        var removal: [Step] = []
        var stays = Set<Int>()
        for graphic in old {
            let lost = cleared || linesMove || isLost(graphic) || (graphic.isPaintedInCells && textOverwrites(graphic.area))
            if !lost, let index = next.firstIndex(of: graphic) {
                stays.insert(index)
                continue
            }
            switch graphic.preview.graphics {
            case .kitty where graphic.preview.placeholders != nil:
                removal.append(.delete(imageID: graphic.preview.imageID))
                if linesMove || !next.contains(where: graphic.isCovered(by:)) { removal.append(.erase(graphic.area)) }
            case .kitty:
                removal.append(.delete(imageID: graphic.preview.imageID))
            case .sixel, .iterm:
                // A new image over exactly the old one's pixels paints over all of them, unless
                // the lines under the old one move first.
                if linesMove || !next.contains(where: graphic.isCovered(by:)) { removal.append(.erase(graphic.area)) }
            }
        }
        let drawing = next.indices.filter { !stays.contains($0) }.map { Step.draw(next[$0]) }
        return update(removal: removal, drawing: drawing, screen: screen)
    }

    /// Takes the images off the screen: before the program quits or suspends.
    public mutating func remove(screen: TerminalSize) -> [UInt8] {
        let update = update(to: [], cleared: false, textOverwrites: { _ in false }, screen: screen)
        return update.before + update.after
    }

    /// The image on the screen now: the pane's (the first of a grid's).
    public var shown: PlacedGraphic? { placed.first }

    /// The screen was redrawn by someone else (a suspend gave it away): whatever was there is gone.
    public mutating func forget() {
        placed = []
    }

    /// The images that `gone` says someone else took off the screen are forgotten; the others stay.
    public mutating func forget(where gone: (PlacedGraphic) -> Bool) {
        placed.removeAll(where: gone)
    }

    private func update(removal: [Step], drawing: [Step], screen: TerminalSize) -> Update {
        let steps = removal + drawing
        guard !steps.isEmpty else { return Update(steps: [], before: [], after: []) }
        let synchronized = terminal.synchronizedOutput
        var before = synchronized ? Self.beginSynchronizedUpdate : []
        for step in removal { before += bytes(for: step, screen: screen) }
        var after: [UInt8] = []
        for step in drawing { after += bytes(for: step, screen: screen) }
        if synchronized { after += Self.endSynchronizedUpdate }
        return Update(steps: steps, before: before, after: after)
    }

    /// The escapes for one step. The cursor and attributes are saved and restored around each
    /// (DECSC, DECRC), so a text library's idea of both stays true.
    private func bytes(for step: Step, screen: TerminalSize) -> [UInt8] {
        switch step {
        case .delete(let id):
            return KittyGraphicsEncoder(passthrough: terminal.passthrough).delete(id: id)
        case .erase(let area):
            let columns = max(0, min(area.column + area.width, screen.columns) - area.column)
            let rows = max(0, min(area.row + area.height, screen.rows) - area.row)
            guard columns > 0, rows > 0, area.column >= 0, area.row >= 0 else { return [] }
            // Default attributes: spaces in the terminal's own background colour.
            let blanks = [UInt8](repeating: UInt8(ascii: " "), count: columns)
            var bytes = EscapeSequence.saveCursor + SGR.reset
            for row in area.row..<(area.row + rows) {
                EscapeSequence.appendCursorPosition(row: row, column: area.column, to: &bytes)
                bytes += blanks
            }
            return bytes + EscapeSequence.restoreCursor
        case .draw(let placed):
            if let placeholders = placed.preview.placeholders {
                // Sent anywhere (a virtual placement), then its text written in its cells, in place.
                var bytes = placed.preview.bytes + EscapeSequence.saveCursor
                for row in 0..<placeholders.rows {
                    EscapeSequence.appendCursorPosition(row: placed.row + row, column: placed.column, to: &bytes)
                    bytes += placeholders.row(row)
                }
                return bytes + EscapeSequence.restoreCursor
            }
            if let origin = paneOrigin, TmuxPlacement.isPassedThrough(placed.preview.bytes) {
                let outer = origin.outer(row: placed.row + 1, column: placed.column + 1)
                return TmuxPlacement.positioned(placed.preview.bytes, row: outer.row, column: outer.column)
            }
            return EscapeSequence.saveCursor + EscapeSequence.cursorPosition(row: placed.row, column: placed.column) + placed.preview.bytes
                + EscapeSequence.restoreCursor
        }
    }
}
