import ImgviewImaging
import ImgviewSupport

/// One full screen of styled cells: what the browser wants the terminal to show.
///
/// The terminal back end keeps the last frame it drew and writes only the cells that differ,
/// so composing a whole frame for every change costs no flicker and little output.
public struct ScreenFrame: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    public private(set) var cells: [StyledCell]
    /// Pixel previews drawn over blank cells of the frame: the pane's one, or a grid's, one a cell.
    public var graphics: [PlacedGraphic] = []

    /// The pane's pixel preview, if one is on screen (the first of a grid's).
    public var graphic: PlacedGraphic? {
        get { graphics.first }
        set { graphics = newValue.map { [$0] } ?? [] }
    }

    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        cells = Array(repeating: StyledCell(" "), count: self.columns * self.rows)
    }

    public subscript(column: Int, row: Int) -> StyledCell {
        get { cells[row * columns + column] }
        set {
            guard column >= 0, column < columns, row >= 0, row < rows else { return }
            let index = row * columns + column
            // Never leave half a wide character: blank the half this cell was paired with.
            if cells[index].isContinuation, !newValue.isContinuation, column > 0 {
                cells[index - 1] = StyledCell(" ")
            } else if column + 1 < columns, cells[index + 1].isContinuation, DisplayWidth.of(cells[index].character) == 2,
                DisplayWidth.of(newValue.character) != 2
            {
                cells[index + 1] = StyledCell(" ")
            }
            cells[index] = newValue
        }
    }

    /// Writes `text` from `column` on `row`, never past `limit` columns (default: the frame's edge).
    ///
    /// Wide characters take two cells; one that would straddle the limit is left out.
    /// Returns the column after the last one written.
    @discardableResult
    public mutating func put(
        _ text: String, column: Int, row: Int, style: TextStyle = [], foreground: TerminalColor = .default,
        background: TerminalColor = .default, limit: Int? = nil
    ) -> Int {
        guard row >= 0, row < rows else { return column }
        let end = min(limit ?? columns, columns)
        var x = column
        for character in text {
            let width = DisplayWidth.of(character)
            if width == 0 { continue }
            if x + width > end { break }
            if x >= 0 {
                self[x, row] = StyledCell(character, foreground: foreground, background: background, style: style)
                if width == 2 { self[x + 1, row] = .continuation }
            }
            x += width
        }
        return x
    }

    /// Fills `columns` cells from `column` on `row` with `character`.
    public mutating func fill(_ character: Character, column: Int, row: Int, count: Int, style: TextStyle = []) {
        for x in column..<max(column, column + count) {
            self[x, row] = StyledCell(character, style: style)
        }
    }

    /// Draws a box with single lines, `title` set into its top edge.
    public mutating func box(column: Int, row: Int, width: Int, height: Int, title: String? = nil, titleStyle: TextStyle = []) {
        guard width >= 2, height >= 2 else { return }
        let right = column + width - 1
        let bottom = row + height - 1
        self[column, row] = StyledCell("┌")
        self[right, row] = StyledCell("┐")
        self[column, bottom] = StyledCell("└")
        self[right, bottom] = StyledCell("┘")
        fill("─", column: column + 1, row: row, count: width - 2)
        fill("─", column: column + 1, row: bottom, count: width - 2)
        for y in (row + 1)..<bottom {
            self[column, y] = StyledCell("│")
            self[right, y] = StyledCell("│")
        }
        if let title, width > 4 {
            let text = " " + DisplayWidth.truncated(TerminalText.sanitized(title), to: width - 4) + " "
            put(text, column: column + 1, row: row, style: titleStyle, limit: right)
        }
    }

    /// Copies a rendered preview in at `column`, `row`, clipped to the frame.
    public mutating func place(_ grid: CellGrid, column: Int, row: Int) {
        for y in 0..<grid.rows {
            for x in 0..<grid.columns {
                let cell = grid[x, y]
                self[column + x, row + y] = StyledCell(cell.character, foreground: cell.foreground, background: cell.background)
            }
        }
    }

    /// The text of `row`, for tests and screenshots.
    public func text(ofRow row: Int) -> String {
        String(cells[(row * columns)..<((row + 1) * columns)].filter { !$0.isContinuation }.map(\.character))
    }

    /// Every row's text, joined by newlines.
    public var text: String {
        (0..<rows).map { text(ofRow: $0) }.joined(separator: "\n")
    }
}

/// One cell of the screen: a character with colours and a style.
public struct StyledCell: Sendable, Equatable {
    public var character: Character
    public var foreground: TerminalColor
    public var background: TerminalColor
    public var style: TextStyle
    /// The right half of a wide character to its left: drawn by that character, never on its own.
    public var isContinuation: Bool

    public init(
        _ character: Character, foreground: TerminalColor = .default, background: TerminalColor = .default, style: TextStyle = []
    ) {
        self.character = character
        self.foreground = foreground
        self.background = background
        self.style = style
        isContinuation = false
    }

    /// Colours and style first: between two pictures nearly every cell differs in colour, and
    /// comparing two different non-ASCII characters takes String's Unicode-equivalence path.
    public static func == (lhs: StyledCell, rhs: StyledCell) -> Bool {
        lhs.foreground == rhs.foreground && lhs.background == rhs.background && lhs.style == rhs.style
            && lhs.isContinuation == rhs.isContinuation && lhs.character == rhs.character
    }

    /// The cell behind the right half of a wide character.
    public static let continuation: StyledCell = {
        var cell = StyledCell(" ")
        cell.isContinuation = true
        return cell
    }()
}

/// How text is emphasised.
public struct TextStyle: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = TextStyle(rawValue: 1 << 0)
    public static let reverse = TextStyle(rawValue: 1 << 1)
    public static let dim = TextStyle(rawValue: 1 << 2)
    public static let underline = TextStyle(rawValue: 1 << 3)
}
