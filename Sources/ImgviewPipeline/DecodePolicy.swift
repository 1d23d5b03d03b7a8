import ImgviewImaging

/// How many pixels the pipeline decodes for a preview: the one place that decides it.
///
/// Decoders scale down while decoding where the format allows (JPEG's DCT scaling), so asking
/// for fewer pixels makes decoding faster and smaller. Where the mode can change (the browser's
/// `m`), the pixels are decoded for the blocks mode, which samples more of each cell than
/// ASCII (2×4), so switching modes renders again from the same pixels instead of decoding again;
/// a preview made once (`show`) is decoded for its own mode only.
public enum DecodePolicy {
    /// The upright pixel size a preview in `options`' box needs from an image with `header`;
    /// `forEveryMode` when the same pixels must serve the other text mode too.
    public static func minimumSize(
        of header: ImageHeader, for options: RenderOptions, thumbnail: ThumbnailSize? = nil, forEveryMode: Bool = true
    ) -> (width: Int, height: Int) {
        let box = minimumSize(of: header, for: options, forEveryMode: forEveryMode)
        guard let thumbnail else { return box }
        // A thumbnail's writer may round its size a pixel or two otherwise: it still serves.
        let upright = header.uprightSize
        let fitted = thumbnail.fitted(width: upright.width, height: upright.height)
        return (max(box.width, min(fitted.width, fitted.width - 2)), max(box.height, min(fitted.height, fitted.height - 2)))
    }

    private static func minimumSize(
        of header: ImageHeader, for options: RenderOptions, forEveryMode: Bool
    ) -> (width: Int, height: Int) {
        var widest = options
        if forEveryMode { widest.mode = .blocks }
        let upright = header.uprightSize
        let text = PreviewRenderer(options: widest).minimumDecodeSize(width: upright.width, height: upright.height)
        guard let graphics = options.graphics else { return text }
        // A pixel preview needs the pixels it shows; enough for blocks too, so `m` renders again without decoding.
        let pixels = GraphicsRenderer(options: graphics, viewport: options.viewport, pngEncoder: nil)
            .minimumDecodeSize(width: upright.width, height: upright.height)
        return (max(text.width, pixels.width), max(text.height, pixels.height))
    }

    /// The least a decoder whose library holds the whole image may come down to when the room of
    /// `minimumSize` does not fit beside it: a pixel preview's own pixels; for a text preview, the same.
    public static func smallestSize(
        of header: ImageHeader, for options: RenderOptions, thumbnail: ThumbnailSize? = nil, forEveryMode: Bool = true
    ) -> (width: Int, height: Int) {
        let minimum = minimumSize(of: header, for: options, thumbnail: thumbnail, forEveryMode: forEveryMode)
        guard thumbnail == nil, let graphics = options.graphics else { return minimum }
        var widest = options
        if forEveryMode { widest.mode = .blocks }
        let upright = header.uprightSize
        let text = PreviewRenderer(options: widest).minimumDecodeSize(width: upright.width, height: upright.height)
        let pixels = GraphicsRenderer(options: graphics, viewport: options.viewport, pngEncoder: nil)
            .smallestDecodeSize(width: upright.width, height: upright.height)
        return (min(minimum.width, max(text.width, pixels.width)), min(minimum.height, max(text.height, pixels.height)))
    }

    /// Whether `image` has enough pixels for a preview that needs `minimum`: as many, or all the
    /// image has; is the page asked for (the last one when there are fewer); and, for a preview
    /// that `animates`, has every frame it could keep.
    public static func covers(_ image: DecodedImage, _ minimum: (width: Int, height: Int), page: Int = 0, animates: Bool = false) -> Bool {
        guard image.page == min(page, max(0, image.header.pageCount - 1)) else { return false }
        if animates, image.isFirstFrameOnly { return false }
        let full = image.header.uprightSize
        let pixels = image.pixels
        return (pixels.width >= minimum.width || pixels.width >= full.width)
            && (pixels.height >= minimum.height || pixels.height >= full.height)
    }
}
