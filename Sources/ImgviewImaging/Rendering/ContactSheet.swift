import ImgviewSupport

/// A contact sheet (`show --grid`): images side by side in cells of one size, a name under each,
/// as many rows to a sheet as asked, the next sheet after an empty line.
///
/// Text sheets are written line by line with no cursor movement, so they read the same in a
/// pipe, a file or a terminal; pixel sheets (`Show`) place each image by saving and restoring
/// the cursor over the same layout.
public struct ContactSheet: Sendable, Equatable {
    /// Cells across, and rows of cells to a sheet (nil: one sheet, however long).
    public let columns: Int
    public let rowsPerSheet: Int?
    /// A cell's image box, in terminal cells; one blank column between cells.
    public let cellWidth: Int
    public let imageRows: Int
    public let hasLabels: Bool

    /// What `auto` aims for: cells of about this many pixels square.
    public static let autoPixels = 256

    /// The layout for a box of `box` terminal cells: `grid` cells across and down when given,
    /// else as many cells of about 256 pixels square (from `cell`, a terminal cell's pixel size)
    /// as fit across, and every image in one sheet.
    public init(box: (columns: Int, rows: Int), grid: (columns: Int, rows: Int)?, cell: CellPixelSize, labels: Bool) {
        let label = labels ? 1 : 0
        hasLabels = labels
        if let grid {
            columns = max(1, min(grid.columns, (box.columns + 1) / 2))
            rowsPerSheet = max(1, grid.rows)
            cellWidth = max(1, (box.columns + 1) / columns - 1)
            imageRows = max(1, (box.rows + 1) / max(1, grid.rows) - 1 - label)
        } else {
            let target = max(4, min(box.columns, Int((Double(Self.autoPixels) / Double(cell.width)).rounded())))
            columns = max(1, (box.columns + 1) / (target + 1))
            rowsPerSheet = nil
            cellWidth = max(1, (box.columns + 1) / columns - 1)
            imageRows = max(1, Int((Double(cellWidth * cell.width) / Double(cell.height)).rounded()))
        }
    }

    /// How many images a sheet holds; nil when one sheet holds them all.
    public var cellsPerSheet: Int? { rowsPerSheet.map { $0 * columns } }

    /// A cell's label: the name, control characters made visible, cut in the middle to the cell's
    /// width (by display width, so wide characters count twice), centred.
    public func label(_ name: String) -> String {
        let text = DisplayWidth.elidedMiddle(TerminalText.sanitized(name), to: cellWidth)
        let left = (cellWidth - DisplayWidth.of(text)) / 2
        return String(repeating: " ", count: left) + text + String(repeating: " ", count: cellWidth - left - DisplayWidth.of(text))
    }

    /// Where the cell at `index` (counted from the sheet's first) starts, in columns from the left
    /// and in lines from the top of its sheet.
    public func origin(of index: Int) -> (column: Int, line: Int) {
        ((index % columns) * (cellWidth + 1), (index / columns) * (imageRows + (hasLabels ? 1 : 0)))
    }

    /// The text of every sheet: `cells` in order, each a rendered grid (nil for an image that
    /// could not be shown) and a name.
    public func text(_ cells: [(grid: CellGrid?, name: String)]) -> String {
        var output = ""
        let perSheet = cellsPerSheet ?? max(1, cells.count)
        var start = 0
        while start < cells.count {
            if start > 0 { output += "\n" }
            let sheet = Array(cells[start..<min(cells.count, start + perSheet)])
            var row = 0
            while row * columns < sheet.count {
                let items = Array(sheet[(row * columns)..<min(sheet.count, (row + 1) * columns)])
                output += rowText(items)
                row += 1
            }
            start += perSheet
        }
        return output
    }

    /// One row of cells: the images' lines side by side, then their names.
    public func rowText(_ items: [(grid: CellGrid?, name: String)]) -> String {
        let width = items.count * cellWidth + (items.count - 1)
        var cells = [Cell](repeating: Cell(character: " "), count: width * imageRows)
        for (offset, item) in items.enumerated() {
            guard let grid = item.grid else { continue }
            let columns = min(grid.columns, cellWidth)
            let rows = min(grid.rows, imageRows)
            let left = offset * (cellWidth + 1) + (cellWidth - columns) / 2
            let top = (imageRows - rows) / 2
            for y in 0..<rows {
                for x in 0..<columns { cells[(top + y) * width + left + x] = grid[x, y] }
            }
        }
        var output = AnsiPrinter().text(for: CellGrid(columns: width, rows: imageRows, cells: cells))
        if hasLabels {
            var line = items.map { label($0.name) }.joined(separator: " ")
            while line.hasSuffix(" ") { line.removeLast() }
            output += line + "\n"
        }
        return output
    }
}
