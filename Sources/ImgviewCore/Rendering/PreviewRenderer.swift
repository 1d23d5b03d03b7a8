/// Runs the rendering stages in order: fit the grid, scale by area in linear light, pick
/// characters and colours per cell, giving a `CellGrid`.
///
/// Synchronous and allocation-bounded by the grid size; run it off any actor that must
/// stay responsive.
public struct PreviewRenderer: Sendable {
    public var options: RenderOptions

    public init(options: RenderOptions) {
        self.options = options
    }

    /// How many sub-cell samples per cell the current mode reads.
    public var samplesPerCell: (columns: Int, rows: Int) {
        switch options.mode {
        case .ascii: (AsciiRenderer.subColumns, AsciiRenderer.subRows)
        case .blocks: (BlockRenderer.subColumns, BlockRenderer.subRows)
        }
    }

    /// The pixel size a decoder must at least deliver for an upright image of `width × height`,
    /// so the area averaging has whole pixels to work with: zoomed in, enough for the visible part.
    public func minimumDecodeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let samples = samplesPerCell
        guard !options.viewport.isFit else {
            let grid = options.fittedGrid(width: width, height: height)
            return (min(width, grid.columns * samples.columns), min(height, grid.rows * samples.rows))
        }
        let visible = options.viewport.region(width: Double(width), height: Double(height), boxAspect: options.boxAspect)
        let grid = options.fittedGrid(width: visible.width, height: visible.height)
        // The whole image at the scale that gives the visible part its samples.
        let scale = min(1, max(Double(grid.columns * samples.columns) / visible.width, Double(grid.rows * samples.rows) / visible.height))
        return (min(width, Int((Double(width) * scale).rounded(.up))), min(height, Int((Double(height) * scale).rounded(.up))))
    }

    /// The closest zoom for an upright image of `width × height`: a cell shows one image pixel.
    public func maximumZoom(width: Int, height: Int) -> Double {
        let grid = options.fittedGrid(width: width, height: height)
        return Viewport.maximumZoom(imageWidth: width, imageHeight: height, fittedWidth: grid.columns, fittedHeight: grid.rows)
    }

    public func render(_ pixels: PixelBuffer) -> CellGrid {
        // Zoomed in, only the visible region is scaled into the box, fractions of pixels included.
        let region =
            options.viewport.isFit
            ? nil : options.viewport.region(width: Double(pixels.width), height: Double(pixels.height), boxAspect: options.boxAspect)
        let grid = options.fittedGrid(width: region?.width ?? Double(pixels.width), height: region?.height ?? Double(pixels.height))
        let samples = samplesPerCell
        let scaled = AreaScaler(background: options.background)
            .scale(pixels, region: region, toWidth: grid.columns * samples.columns, height: grid.rows * samples.rows)
        switch options.mode {
        case .ascii:
            return AsciiRenderer(lightOnDark: options.lightOnDark).render(
                scaled, columns: grid.columns, rows: grid.rows, colors: options.colors)
        case .blocks:
            return BlockRenderer(lightOnDark: options.lightOnDark).render(
                scaled, columns: grid.columns, rows: grid.rows, colors: options.colors)
        }
    }
}
