import ImgviewImaging
import ImgviewSupport

/// The bytes that draw cells in place, for the browser's cells that ncurses cannot colour itself.
///
/// Cells are added in screen order; neighbours on a row share one cursor move, and colours are
/// sent only when they change from the cell before (after a full reset whenever the style
/// changes), so a whole picture costs about what `show` prints for it. The cursor
/// and attributes are saved before and restored after (DECSC/DECRC), so ncurses' idea of both
/// stays true.
public struct DirectCellText: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Where the terminal's cursor is after the last cell written, when known.
    private var cursor: (column: Int, row: Int)?
    /// The attributes in force after the last cell; nil before the first, when nothing is known.
    private var style: TextStyle?
    private var foreground = TerminalColor.default
    private var background = TerminalColor.default

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
        bytes += EscapeSequence.saveCursor
    }

    /// Adds `cell`, to be drawn at `column`, `row` (zero-based).
    public mutating func append(_ cell: StyledCell, column: Int, row: Int) {
        if cursor.map({ $0 != (column, row) }) ?? true {
            EscapeSequence.appendCursorPosition(row: row, column: column, to: &bytes)
        }
        appendAttributes(of: cell)
        let scalars = cell.character.unicodeScalars
        if scalars.contains(where: TerminalText.isUnsafe) {
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes += cell.character.utf8
        }
        cursor = (column + DisplayWidth.of(cell.character), row)
    }

    /// The bytes, ending with the attributes reset and the cursor put back.
    public func finished() -> [UInt8] {
        bytes + SGR.reset + EscapeSequence.restoreCursor
    }

    /// Sets the cell's style (after a full reset) where it differs from the last cell's, then its
    /// colours where they differ from those in force: all in one SGR sequence.
    private mutating func appendAttributes(of cell: StyledCell) {
        var sgr = SGRWriter()
        if style != cell.style {
            sgr.append(.reset, to: &bytes)
            for (flag, attribute) in [(TextStyle.bold, SGR.Attribute.bold), (.dim, .dim), (.underline, .underline), (.reverse, .reverse)]
            where cell.style.contains(flag) {
                sgr.append(attribute, to: &bytes)
            }
            style = cell.style
            foreground = .default
            background = .default
        }
        if cell.foreground != foreground {
            sgr.append(.foreground(cell.foreground.sgr), to: &bytes)
            foreground = cell.foreground
        }
        if cell.background != background {
            sgr.append(.background(cell.background.sgr), to: &bytes)
            background = cell.background
        }
        sgr.finish(&bytes)
    }
}
