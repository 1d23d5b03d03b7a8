extension RenderedPreview {
    /// The render stage: characters by `PreviewRenderer`, or, when `options.graphics` is set,
    /// pixels encoded by `GraphicsRenderer` with blank cells where they go.
    /// `image`'s pixels rendered for `options`, laid out with the image's own proportions.
    static func rendering(
        _ image: DecodedImage, options: RenderOptions, pngEncoder: (any PNGEncoding)?
    ) throws(GraphicsRenderingError) -> RenderedPreview {
        let size = image.header.uprightSize
        guard let graphics = options.graphics else {
            return RenderedPreview(grid: PreviewRenderer(options: options).render(image.pixels, imageSize: size))
        }
        let preview = try GraphicsRenderer(options: graphics, pngEncoder: pngEncoder).render(image.pixels, imageSize: size)
        let blank = CellGrid(
            columns: preview.layout.columns, rows: preview.layout.rows,
            cells: Array(repeating: Cell(character: " "), count: preview.layout.columns * preview.layout.rows))
        return RenderedPreview(grid: blank, graphics: preview)
    }
}
