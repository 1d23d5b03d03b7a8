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
    /// Which part of the image to show: all of it, or a closer look (zoom and pan).
    public var viewport: Viewport
    /// Set for a pixel preview (kitty, iTerm2, sixel): the render stage then encodes pixels for
    /// the terminal instead of choosing characters, and `mode` and `colors` do not apply.
    public var graphics: GraphicsOptions?
    /// Whether an animation's every frame is rendered too, or only the first (for output that
    /// cannot play it, such as a pipe).
    public var animates: Bool
    /// Which page of a file of several (a TIFF document, a HEIF collection) to show, from 0.
    public var page: Int

    public init(
        columns: Int, rows: Int, mode: RenderMode = .blocks, colors: ColorMode = .full, cellAspect: Double = 2.0,
        background: RGBColor = RGBColor(red: 0, green: 0, blue: 0), lightOnDark: Bool = true, viewport: Viewport = .fit,
        graphics: GraphicsOptions? = nil, animates: Bool = true, page: Int = 0
    ) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.mode = mode
        self.colors = colors
        self.cellAspect = cellAspect
        self.background = background
        self.lightOnDark = lightOnDark
        self.viewport = viewport
        self.graphics = graphics
        self.animates = animates
        self.page = max(0, page)
    }

    /// The box's width divided by its height, as they look on screen: from the cells' pixel size
    /// for a pixel preview, else from `cellAspect`. What a viewport's visible region is shaped by.
    public var boxAspect: Double {
        graphics?.boxAspect ?? Double(columns) / (Double(rows) * cellAspect)
    }

    /// The largest grid inside the box that keeps an image of `width × height` pixels in proportion.
    public func fittedGrid(width: Int, height: Int) -> (columns: Int, rows: Int) {
        fittedGrid(width: Double(width), height: Double(height))
    }

    /// The same for a size in fractions of pixels: the visible part of a zoomed view.
    public func fittedGrid(width: Double, height: Double) -> (columns: Int, rows: Int) {
        let neededColumns = width / height * Double(rows) * cellAspect
        if neededColumns <= Double(columns) {
            return (max(1, Int(neededColumns.rounded())), rows)
        }
        return (columns, max(1, Int((Double(columns) * height / width / cellAspect).rounded())))
    }
}
