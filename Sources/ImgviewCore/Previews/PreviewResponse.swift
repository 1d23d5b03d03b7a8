/// A finished preview and the facts of the image it shows.
public struct PreviewResponse: Sendable, Equatable {
    public var facts: ImageFacts
    public var preview: RenderedPreview
    /// Set when only part of the image could be decoded (a truncated or damaged file).
    public var warning: String?

    public init(facts: ImageFacts, preview: RenderedPreview, warning: String?) {
        self.facts = facts
        self.preview = preview
        self.warning = warning
    }
}

/// What the render stage makes of a decoded image for one box, mode and colour depth: what a
/// terminal back end draws.
public struct RenderedPreview: Sendable, Equatable {
    /// The cells of the preview; for a pixel preview, blank cells where the image goes.
    public var grid: CellGrid
    /// A pixel preview's escape sequence, to write at the grid's top-left cell; nil for text.
    public var graphics: GraphicsPreview?

    public init(grid: CellGrid, graphics: GraphicsPreview? = nil) {
        self.grid = grid
        self.graphics = graphics
    }

    /// Bytes held in memory, roughly: what the preview cache counts.
    var cost: Int { grid.cells.count * MemoryLayout<Cell>.stride + (graphics?.bytes.count ?? 0) }
}
