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
        case .blocks: BlockPattern.grid(for: options.symbols)
        }
    }

    /// How many pixels per cell a decode must deliver for the current mode. ASCII: twice its
    /// samples each way, since what a decoder reduces it averages in gamma-encoded values and the
    /// area scaler in linear light, which a glyph's tone shows. Block symbols: seven of their
    /// eight, which only place a boundary within a cell that the scaler's blend of seven places
    /// nearly as well; seven let a JPEG's cheapest scale (1/8, the DC coefficients alone in a
    /// progressive file) serve boxes that eight would send to 1/4 and its whole coefficient arrays.
    public var decodeSamplesPerCell: (columns: Int, rows: Int) {
        let samples = samplesPerCell
        switch options.mode {
        case .ascii: return (2 * samples.columns, 2 * samples.rows)
        case .blocks: return (samples.columns == 8 ? 7 : samples.columns, samples.rows == 8 ? 7 : samples.rows)
        }
    }

    /// The pixel size a decoder must at least deliver for an upright image of `width × height`,
    /// so the area averaging has whole pixels to work with: zoomed in, enough for the visible part.
    public func minimumDecodeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let samples = decodeSamplesPerCell
        guard !options.viewport.isFit else {
            let grid = options.fittedGrid(width: width, height: height)
            return (min(width, grid.columns * samples.columns), min(height, grid.rows * samples.rows))
        }
        let visible = options.viewport.region(width: Double(width), height: Double(height), boxAspect: options.boxAspect)
        let grid = options.fittedGrid(width: visible.width, height: visible.height)
        return Viewport.decodeSize(
            width: width, height: height, showing: visible, samples: (grid.columns * samples.columns, grid.rows * samples.rows))
    }

    /// The closest zoom for an upright image of `width × height`: a cell shows one image pixel.
    public func maximumZoom(width: Int, height: Int) -> Double {
        let grid = options.fittedGrid(width: width, height: height)
        return Viewport.maximumZoom(imageWidth: width, imageHeight: height, fittedWidth: grid.columns, fittedHeight: grid.rows)
    }

    /// Renders `pixels`, fitted with the proportions of `imageSize` (the image's own upright size,
    /// which a decode reduced by whole factors may round off by a pixel) or else of the pixels.
    public func render(_ pixels: PixelBuffer, imageSize: (width: Int, height: Int)? = nil) -> CellGrid {
        let size = imageSize ?? (pixels.width, pixels.height)
        // Zoomed in, only the visible region is scaled into the box, fractions of pixels included.
        let visible = options.viewport.visibleRegion(of: size, in: pixels, boxAspect: options.boxAspect)
        let grid =
            visible.map { options.fittedGrid(width: $0.image.width, height: $0.image.height) }
            ?? options.fittedGrid(width: size.width, height: size.height)
        let samples = samplesPerCell
        let scaled = AreaScaler(background: options.background)
            .scale(pixels, region: visible?.pixels, toWidth: grid.columns * samples.columns, height: grid.rows * samples.rows)
        switch options.mode {
        case .ascii:
            return AsciiRenderer(lightOnDark: options.lightOnDark).render(
                scaled, columns: grid.columns, rows: grid.rows, colors: options.colors)
        case .blocks:
            return BlockRenderer(lightOnDark: options.lightOnDark, symbols: options.symbols).render(
                scaled, columns: grid.columns, rows: grid.rows, colors: options.colors)
        }
    }
}
