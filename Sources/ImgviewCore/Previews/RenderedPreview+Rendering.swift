extension RenderedPreview {
    /// The render stage: characters by `PreviewRenderer`, or, when `options.graphics` is set,
    /// pixels encoded by `GraphicsRenderer` with blank cells where they go.
    static func rendering(
        _ pixels: PixelBuffer, options: RenderOptions, pngEncoder: (any PNGEncoding)?
    ) throws(GraphicsRenderingError) -> RenderedPreview {
        guard let graphics = options.graphics else { return RenderedPreview(grid: PreviewRenderer(options: options).render(pixels)) }
        let preview = try GraphicsRenderer(options: graphics, pngEncoder: pngEncoder).render(pixels)
        let blank = CellGrid(
            columns: preview.layout.columns, rows: preview.layout.rows,
            cells: Array(repeating: Cell(character: " "), count: preview.layout.columns * preview.layout.rows))
        return RenderedPreview(grid: blank, graphics: preview)
    }
}
