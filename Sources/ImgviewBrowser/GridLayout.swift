import ImgviewImaging
import ImgviewPipeline

/// The grid view's own state: how big its thumbnails are, which row is at the top, and what each
/// visible cell shows.
public struct GridViewport: Sendable, Equatable {
    /// The thumbnail sizes `+` and `-` step through, in pixels of the longest side.
    public static let sizes = [96, 128, 192, 256, 384, 512]
    public static let standardSize = 256

    /// A cell's image is about this many pixels square on screen.
    public var thumbnailPixels: Int
    /// The grid row shown at the top of the area.
    public var firstRow: Int
    /// A terminal cell's pixel size, which makes the grid's cells about square.
    public var cell: CellPixelSize
    /// What the visible cells show, by the image's URL text; a visible image without an entry has
    /// not been asked for yet.
    public var cells: [String: GridCell]

    public init(
        thumbnailPixels: Int = GridViewport.standardSize, firstRow: Int = 0, cell: CellPixelSize = .fallback,
        cells: [String: GridCell] = [:]
    ) {
        self.thumbnailPixels = thumbnailPixels
        self.firstRow = firstRow
        self.cell = cell
        self.cells = cells
    }

    /// The next size up (`+`) or down (`-`); nil at either end.
    public func resized(larger: Bool) -> Int? {
        let sizes = Self.sizes
        if larger { return sizes.first { $0 > thumbnailPixels } }
        return sizes.last { $0 < thumbnailPixels }
    }
}

/// What one cell of the grid shows.
public enum GridCell: Sendable, Equatable {
    case loading
    case loaded(RenderedPreview)
    /// A one-line reason, safe to print: the status line shows it when the cell is selected.
    case failed(String)
}

/// Where the grid's cells go in an area: each cell is an image about square in pixels, its name
/// on the row under it, one blank column between cells.
public struct GridLayout: Sendable, Equatable {
    public let area: Rectangle
    /// A cell's image box, in cells.
    public let cellWidth: Int
    public let imageRows: Int
    /// How many cells fit across, and how many rows of cells show at once.
    public let columns: Int
    public let visibleRows: Int

    public init(area: Rectangle, thumbnailPixels: Int, cell: CellPixelSize) {
        self.area = area
        let side = Double(max(1, thumbnailPixels))
        cellWidth = max(4, min(area.width, Int((side / Double(cell.width)).rounded())))
        imageRows = max(2, min(area.height - 1, Int((side / Double(cell.height)).rounded())))
        columns = max(1, (area.width + 1) / (cellWidth + 1))
        visibleRows = max(1, area.height / (imageRows + 1))
    }

    /// How many cells a screen shows.
    public var cellsPerScreen: Int { columns * visibleRows }

    /// The grid row `index` is in.
    public func row(of index: Int) -> Int { index / columns }

    /// The image box of the cell at `index` when the grid shows `firstRow` at the top; nil when it
    /// is off screen. The name goes on the row under it.
    public func imageBox(of index: Int, firstRow: Int) -> Rectangle? {
        let row = self.row(of: index) - firstRow
        guard index >= 0, row >= 0, row < visibleRows else { return nil }
        let column = index % columns
        // The cells as a block, centred across the area.
        let used = columns * cellWidth + (columns - 1)
        let left = area.column + max(0, (area.width - used) / 2)
        return Rectangle(
            column: left + column * (cellWidth + 1), row: area.row + row * (imageRows + 1), width: cellWidth, height: imageRows)
    }

    /// The cell under a screen position (image or name), if one is there.
    public func index(atColumn column: Int, row: Int, firstRow: Int, count: Int) -> Int? {
        let used = columns * cellWidth + (columns - 1)
        let left = area.column + max(0, (area.width - used) / 2)
        let x = column - left
        let y = row - area.row
        guard x >= 0, y >= 0, x < used, y < visibleRows * (imageRows + 1) else { return nil }
        guard x % (cellWidth + 1) < cellWidth else { return nil }
        let index = (firstRow + y / (imageRows + 1)) * columns + x / (cellWidth + 1)
        return index < count ? index : nil
    }

    /// The top row that keeps `index` on screen, moving from `firstRow` as little as possible, and
    /// never leaving blank rows after the last when there are enough images to fill the screen.
    public func firstRow(showing index: Int, from firstRow: Int, count: Int) -> Int {
        let row = self.row(of: index)
        var top = firstRow
        if row < top { top = row }
        if row >= top + visibleRows { top = row - visibleRows + 1 }
        let lastRow = max(0, (count - 1) / columns)
        return max(0, min(top, max(0, lastRow - visibleRows + 1)))
    }

    /// The range of image indices visible with `firstRow` at the top.
    public func visible(firstRow: Int, count: Int) -> Range<Int> {
        let start = min(count, firstRow * columns)
        return start..<min(count, start + cellsPerScreen)
    }
}
