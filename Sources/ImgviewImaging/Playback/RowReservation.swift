import ImgviewSupport

/// Room for a preview of `rows` lines where a command's output goes, on a terminal that scrolls.
///
/// The rows are made first (new lines, scrolling now rather than while drawing), the cursor is
/// saved at their top, and afterwards it is put back there and moved below them: so what comes
/// next (the prompt, the next image) starts under the preview whatever the protocol did with the
/// cursor, and also where nothing moved it (an image tmux passed through to the outer terminal
/// leaves tmux's cursor where it was).
public struct RowReservation: Sendable, Equatable {
    public var rows: Int

    public init(rows: Int) {
        self.rows = max(0, rows)
    }

    /// New lines for the rows, back up to their top, the cursor saved there (DECSC).
    public var start: [UInt8] {
        rows > 0
            ? [UInt8](repeating: UInt8(ascii: "\n"), count: rows) + EscapeSequence.cursorUp(rows) + EscapeSequence.saveCursor
            : EscapeSequence.saveCursor
    }

    /// The cursor back to the top (DECRC), then below the rows, at the start of the line.
    public var end: [UInt8] {
        EscapeSequence.restoreCursor + (rows > 0 ? EscapeSequence.cursorDown(rows) : []) + [UInt8(ascii: "\r")]
    }
}
