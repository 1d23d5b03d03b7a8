extension RenderOptions {
    /// The closest zoom worth having for an upright image of `width × height` in these options:
    /// a cell to one image pixel for characters, a screen pixel to one image pixel for pixels
    /// (which are never scaled up past the image's own).
    public func maximumZoom(width: Int, height: Int) -> Double {
        guard let graphics else { return PreviewRenderer(options: self).maximumZoom(width: width, height: height) }
        return GraphicsRenderer(options: graphics, pngEncoder: nil).maximumZoom(width: width, height: height)
    }
}
