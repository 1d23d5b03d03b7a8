import ImgviewImaging
import ImgviewSupport

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

    /// Whether the image is painted into its cells (sixel, iTerm2) or shown by text in them (kitty's
    /// Unicode placeholders), so that text written there takes it away; not a kitty placement, which
    /// is kept apart from the text.
    public var isPaintedInCells: Bool {
        preview.graphics != .kitty || preview.placeholders != nil
    }

    /// Whether the image reached the terminal outside tmux positioned by its own packets, so tmux
    /// neither keeps nor moves it (a kitty image shown by placeholders is text tmux keeps).
    public var isPositionedPastTmux: Bool {
        preview.placeholders == nil && TmuxPlacement.isPassedThrough(preview.bytes)
    }

    /// Whether drawing `other` paints every pixel this one painted (same place, same pixel size):
    /// then the new image needs no erasing of the old first. Previews are opaque (transparency is
    /// composed over the background), so nothing of the old one shows through.
    func isCovered(by other: PlacedGraphic) -> Bool {
        other.column == column && other.row == row && other.preview.layout == preview.layout
            && other.preview.graphics == preview.graphics
    }
}
