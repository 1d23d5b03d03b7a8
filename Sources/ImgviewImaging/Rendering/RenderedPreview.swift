/// What the render stage makes of a decoded image for one box, mode and colour depth: what a
/// terminal back end draws.
public struct RenderedPreview: Sendable, Equatable {
    /// The cells of the preview; for a pixel preview, blank cells where the image goes.
    public var grid: CellGrid
    /// A pixel preview's escape sequence, to write at the grid's top-left cell; nil for text.
    public var graphics: GraphicsPreview?
    /// Every frame of an animated image, rendered like the first (which `grid` and `graphics`
    /// are); nil for a still.
    public var animation: RenderedAnimation?

    public init(grid: CellGrid, graphics: GraphicsPreview? = nil, animation: RenderedAnimation? = nil) {
        self.grid = grid
        self.graphics = graphics
        self.animation = animation
    }

    /// Bytes held in memory, roughly: what the preview cache counts.
    package var cost: Int { RenderedFrame.cost(grid: grid, graphics: graphics) + (animation?.cost ?? 0) }
}
