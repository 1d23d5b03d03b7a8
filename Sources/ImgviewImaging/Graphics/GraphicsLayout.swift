/// Where a pixel preview goes: its exact size in pixels and the cells it covers.
///
/// The image is fitted into the box (cells × cell pixels) keeping its aspect, scaled up as well
/// as down, as a text preview fills its box too.
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

    /// The same for a size in fractions of pixels: the visible part of a zoomed view.
    public static func fitting(width: Double, height: Double, columns: Int, rows: Int, cell: CellPixelSize) -> GraphicsLayout {
        let boxWidth = max(1, columns) * cell.width
        let boxHeight = max(1, rows) * cell.height
        let scale = min(Double(boxWidth) / max(1, width), Double(boxHeight) / max(1, height))
        let pixelWidth = min(boxWidth, max(1, Int((width * scale).rounded())))
        let pixelHeight = min(boxHeight, max(1, Int((height * scale).rounded())))
        return GraphicsLayout(
            pixelWidth: pixelWidth, pixelHeight: pixelHeight,
            columns: (pixelWidth + cell.width - 1) / cell.width, rows: (pixelHeight + cell.height - 1) / cell.height)
    }
}
