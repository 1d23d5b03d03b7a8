import ImgviewSupport

extension RenderedPreview {
    /// The render stage: characters by `PreviewRenderer`, or, when `options.graphics` is set,
    /// pixels encoded by `GraphicsRenderer` with blank cells where they go; an animation's every
    /// frame the same way, laid out with the image's own proportions.
    ///
    /// An animation's frames are kept while they take at most `animationCostLimit` bytes in all;
    /// the first that would pass it ends the animation there, and `warning` says so (the decoder's
    /// own warning, if any, comes first). Stops between frames with `CancellationError` once
    /// `cancellation` is set.
    package static func rendering(
        _ image: DecodedImage, options: RenderOptions, pngEncoder: (any PNGEncoding)?, animationCostLimit: Int = .max,
        cancellation: CancellationFlag = CancellationFlag()
    ) throws -> (preview: RenderedPreview, warning: String?) {
        let size = image.header.uprightSize
        let render = { (pixels: PixelBuffer) throws -> (CellGrid, GraphicsPreview?) in
            guard let graphics = options.graphics else {
                return (PreviewRenderer(options: options).render(pixels, imageSize: size), nil)
            }
            let preview = try GraphicsRenderer(options: graphics, viewport: options.viewport, pngEncoder: pngEncoder)
                .render(pixels, imageSize: size)
            return (CellGrid.blank(columns: preview.layout.columns, rows: preview.layout.rows), preview)
        }
        let (grid, graphics) = try render(image.pixels)
        var preview = RenderedPreview(grid: grid, graphics: graphics)
        guard options.animates, let animation = image.animation else { return (preview, image.warning) }

        var frames = [RenderedFrame(grid: grid, graphics: graphics, delay: animation.frames[0].delay)]
        var cost = 0
        var limitReached = false
        for frame in animation.frames.dropFirst() {
            if cancellation.isCancelled { throw CancellationError() }
            var (frameGrid, frameGraphics) = try render(frame.pixels)
            // Every pixel frame has the same blank cells: share one array.
            if frameGraphics != nil { frameGrid = grid }
            let rendered = RenderedFrame(grid: frameGrid, graphics: frameGraphics, delay: frame.delay)
            cost += frameGraphics?.bytes.count ?? RenderedFrame.cost(grid: frameGrid, graphics: nil)
            if cost > animationCostLimit {
                limitReached = true
                break
            }
            frames.append(rendered)
        }
        if frames.count > 1 { preview.animation = RenderedAnimation(frames: frames, loopCount: animation.loopCount) }
        guard limitReached else { return (preview, image.warning) }
        let note =
            "animation cut short after \(frames.count) of \(animation.frames.count) frames "
            + "(the preview's frames may not take more than \(ByteCount.format(Int64(animationCostLimit))))"
        return (preview, [image.warning, note].compactMap { $0 }.joined(separator: "; "))
    }
}

extension CellGrid {
    /// `columns × rows` blank cells in the terminal's own colours: where a pixel preview goes.
    static func blank(columns: Int, rows: Int) -> CellGrid {
        CellGrid(columns: columns, rows: rows, cells: Array(repeating: Cell(character: " "), count: columns * rows))
    }
}
