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
    /// so the area averaging has whole pixels to work with.
    public func minimumDecodeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let grid = options.fittedGrid(width: width, height: height)
        let samples = samplesPerCell
        return (min(width, grid.columns * samples.columns), min(height, grid.rows * samples.rows))
    }

    /// Renders `pixels`, fitted with the proportions of `imageSize` (the image's own upright size,
    /// which a decode reduced by whole factors may round off by a pixel) or else of the pixels.
    public func render(_ pixels: PixelBuffer, imageSize: (width: Int, height: Int)? = nil) -> CellGrid {
        let size = imageSize ?? (pixels.width, pixels.height)
        let grid = options.fittedGrid(width: size.width, height: size.height)
        let samples = samplesPerCell
        let scaled = AreaScaler(background: options.background)
            .scale(pixels, toWidth: grid.columns * samples.columns, height: grid.rows * samples.rows)
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
