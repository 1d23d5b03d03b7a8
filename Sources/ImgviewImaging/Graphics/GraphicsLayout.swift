/// Where a pixel preview goes: its exact size in pixels and the cells it covers.
///
/// The image is fitted into the box (cells × cell pixels) keeping its aspect, scaled down, never
/// up: drawn with at most its own pixels (as chafa and timg draw pixels by default), and within
/// `largestPixelCount`, so that neither a small image nor a terminal that reports enormous cells
/// makes a preview of millions of pixels no screen shows.
public struct GraphicsLayout: Sendable, Hashable {
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// The cells the pixels cover, partly covered ones included.
    public var columns: Int
    public var rows: Int

    public init(pixelWidth: Int, pixelHeight: Int, columns: Int, rows: Int) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.columns = columns
        self.rows = rows
    }

    /// The largest size inside `columns × rows` cells of `cell` pixels that keeps `width × height` in proportion.
    public static func fitting(width: Int, height: Int, columns: Int, rows: Int, cell: CellPixelSize) -> GraphicsLayout {
        fitting(width: Double(width), height: Double(height), columns: columns, rows: rows, cell: cell)
    }

    /// The most pixels a preview is drawn with, and the most on either side: more than any screen
    /// shows, so only a terminal that lies about its cells (or a box of thousands of cells) meets it.
    public static let largestPixelCount = 4096 * 4096
    public static let largestSide = 8192

    /// The same for a size in fractions of pixels: the visible part of a zoomed view.
    public static func fitting(width: Double, height: Double, columns: Int, rows: Int, cell: CellPixelSize) -> GraphicsLayout {
        // In floating point: a box of many cells of a large cell must not overflow.
        let boxWidth = Double(max(1, columns)) * Double(cell.width)
        let boxHeight = Double(max(1, rows)) * Double(cell.height)
        let fitting = min(boxWidth / max(1, width), boxHeight / max(1, height))
        // At most the image's own pixels and the limits, keeping the aspect: fewer cells are covered then.
        let limit = min(
            1, Double(largestSide) / max(1, width), Double(largestSide) / max(1, height),
            (Double(largestPixelCount) / (max(1, width) * max(1, height))).squareRoot())
        let scale = min(fitting, limit)
        // Rounded down at the limit, so it holds exactly.
        let rounding: FloatingPointRoundingRule = fitting > limit ? .down : .toNearestOrAwayFromZero
        let pixelWidth = max(1, Int(min(boxWidth, (width * scale).rounded(rounding))))
        let pixelHeight = max(1, Int(min(boxHeight, (height * scale).rounded(rounding))))
        return GraphicsLayout(
            pixelWidth: pixelWidth, pixelHeight: pixelHeight,
            columns: (pixelWidth + cell.width - 1) / cell.width, rows: (pixelHeight + cell.height - 1) / cell.height)
    }
}
