/// Everything the renderer needs to know besides the pixels.
public struct RenderOptions: Sendable, Hashable {
    /// The box to fit in, in cells; the preview keeps the image's aspect inside it.
    public var columns: Int
    public var rows: Int
    public var mode: RenderMode
    public var colors: ColorMode
    /// Cell height divided by cell width; most terminal fonts are close to 2.
    public var cellAspect: Double
    /// What transparent pixels are composed over: the terminal's background.
    public var background: RGBColor
    /// Whether the terminal's default foreground is light (text on a dark background).
    ///
    /// Colourless ASCII draws light where glyphs are; on a light-on-dark terminal that is
    /// the image's bright parts.
    public var lightOnDark: Bool
    /// Set for a pixel preview (kitty, iTerm2, sixel): the render stage then encodes pixels for
    /// the terminal instead of choosing characters, and `mode` and `colors` do not apply.
    public var graphics: GraphicsOptions?

    public init(
        columns: Int, rows: Int, mode: RenderMode = .blocks, colors: ColorMode = .full, cellAspect: Double = 2.0,
        background: RGBColor = RGBColor(red: 0, green: 0, blue: 0), lightOnDark: Bool = true, graphics: GraphicsOptions? = nil
    ) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.mode = mode
        self.colors = colors
        self.cellAspect = cellAspect
        self.background = background
        self.lightOnDark = lightOnDark
        self.graphics = graphics
    }

    /// The largest grid inside the box that keeps an image of `width × height` pixels in proportion.
    public func fittedGrid(width: Int, height: Int) -> (columns: Int, rows: Int) {
        let neededColumns = Double(width) / Double(height) * Double(rows) * cellAspect
        if neededColumns <= Double(columns) {
            return (max(1, Int(neededColumns.rounded())), rows)
        }
        return (columns, max(1, Int((Double(columns) * Double(height) / Double(width) / cellAspect).rounded())))
    }
}
