/// The finished preview: one character and two colours per terminal cell.
///
/// The only thing a terminal back end sees: `AnsiPrinter` writes it to stdout, the TUI
/// draws the same value with ncurses.
public struct CellGrid: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    /// Row by row, `columns * rows` cells.
    public var cells: [Cell]

    public init(columns: Int, rows: Int, cells: [Cell]) {
        precondition(cells.count == columns * rows, "cell count mismatch")
        self.columns = columns
        self.rows = rows
        self.cells = cells
    }

    public subscript(column: Int, row: Int) -> Cell {
        cells[row * columns + column]
    }
}

/// One terminal cell: a character drawn in `foreground` over `background`.
public struct Cell: Sendable, Equatable {
    public var character: Character
    public var foreground: TerminalColor
    public var background: TerminalColor

    public init(character: Character, foreground: TerminalColor = .default, background: TerminalColor = .default) {
        self.character = character
        self.foreground = foreground
        self.background = background
    }
}

/// A colour as a terminal can be told it: its own default, a palette index, or 24-bit RGB.
public enum TerminalColor: Sendable, Equatable, Hashable {
    case `default`
    /// xterm palette index 0...255.
    case indexed(UInt8)
    case rgb(RGBColor)
}
