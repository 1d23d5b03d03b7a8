import ImgviewImaging

/// A pixel preview where a screen shows it: drawn from the cell at `column`, `row`, over the
/// blank cells of its layout.
public struct PlacedGraphic: Sendable, Equatable {
    public var column: Int
    public var row: Int
    public var preview: GraphicsPreview

    public init(column: Int, row: Int, preview: GraphicsPreview) {
        self.column = column
        self.row = row
        self.preview = preview
    }

    /// The cells the pixels cover, partly covered ones included.
    public var area: Rectangle {
        Rectangle(column: column, row: row, width: preview.layout.columns, height: preview.layout.rows)
    }

    /// Whether drawing `other` paints every pixel this one painted (same place, same pixel size):
    /// then the new image needs no erasing of the old first. Previews are opaque (transparency is
    /// composed over the background), so nothing of the old one shows through.
    func isCovered(by other: PlacedGraphic) -> Bool {
        other.column == column && other.row == row && other.preview.layout == preview.layout
            && other.preview.graphics == preview.graphics
    }
}
