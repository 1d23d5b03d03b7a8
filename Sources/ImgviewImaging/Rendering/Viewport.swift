/// Which part of an image a preview shows: all of it (`fit`), or a closer look around a point.
///
/// It is part of the render request (`RenderOptions.viewport`), so every preview mode honours it
/// and the pipeline keeps each view's preview apart: a renderer crops the decoded pixels to the
/// visible region before it scales them, and `DecodePolicy` asks for as many more pixels as the
/// zoom needs. Everything is in fractions of the upright image, so the same view applies to pixels
/// decoded at any scale.
public struct Viewport: Sendable, Hashable {
    /// How many times closer than fitting the whole image in the box: 1 shows all of it.
    public var zoom: Double
    /// The point at the centre of the view, as a fraction of the upright image's width.
    public var centerX: Double
    /// The point at the centre of the view, as a fraction of the upright image's height.
    public var centerY: Double

    /// The whole image, fitted in the box.
    public static let fit = Viewport(zoom: 1, centerX: 0.5, centerY: 0.5)

    /// Each zoom step is this factor.
    public static let step = 1.5

    public init(zoom: Double, centerX: Double, centerY: Double) {
        self.zoom = max(1, zoom)
        self.centerX = min(1, max(0, centerX))
        self.centerY = min(1, max(0, centerY))
    }

    public var isFit: Bool { zoom <= 1 }

    /// A rectangle in the image, in the units the image's size was given in.
    public struct Region: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
    }

    /// The part of an image of `width × height` that shows in a box whose width divided by its
    /// height is `boxAspect` (both in the same physical units), kept inside the image.
    ///
    /// At zoom 1 it is the whole image. Closer, the side that limited the fit shows `1/zoom` of
    /// the image and the other side as much as the box has room for.
    public func region(width: Double, height: Double, boxAspect: Double) -> Region {
        guard !isFit, width > 0, height > 0, boxAspect > 0 else { return Region(x: 0, y: 0, width: width, height: height) }
        let visibleWidth: Double
        let visibleHeight: Double
        if width / height >= boxAspect {
            visibleWidth = width / zoom
            visibleHeight = min(height, visibleWidth / boxAspect)
        } else {
            visibleHeight = height / zoom
            visibleWidth = min(width, visibleHeight * boxAspect)
        }
        let x = min(max(0, centerX * width - visibleWidth / 2), width - visibleWidth)
        let y = min(max(0, centerY * height - visibleHeight / 2), height - visibleHeight)
        return Region(x: x, y: y, width: visibleWidth, height: visibleHeight)
    }

    /// This view `factor` times closer (or further, below 1), between fit and `maximum`, with its
    /// centre kept where the region stays inside the image.
    public func zoomed(by factor: Double, maximum: Double, width: Double, height: Double, boxAspect: Double) -> Viewport {
        var zoomed = self
        zoomed.zoom = min(max(1, maximum), zoom * factor)
        // A step that lands just above fit is fit: 1.0000001 would be a different preview of the same view.
        if zoomed.zoom < 1.01 { return .fit }
        return zoomed.settled(width: width, height: height, boxAspect: boxAspect)
    }

    /// This view moved by `dx` and `dy` times the visible region's width and height, kept inside the image.
    public func panned(dx: Double, dy: Double, width: Double, height: Double, boxAspect: Double) -> Viewport {
        guard !isFit, width > 0, height > 0 else { return self }
        let visible = region(width: width, height: height, boxAspect: boxAspect)
        var moved = self
        moved.centerX = (visible.x + visible.width / 2 + dx * visible.width) / width
        moved.centerY = (visible.y + visible.height / 2 + dy * visible.height) / height
        return moved.settled(width: width, height: height, boxAspect: boxAspect)
    }

    /// The same view with its centre where the region actually is, so a pan past the edge does not
    /// build up distance that later pans would first have to undo.
    private func settled(width: Double, height: Double, boxAspect: Double) -> Viewport {
        guard width > 0, height > 0 else { return self }
        let visible = region(width: width, height: height, boxAspect: boxAspect)
        return Viewport(zoom: zoom, centerX: (visible.x + visible.width / 2) / width, centerY: (visible.y + visible.height / 2) / height)
    }

    /// The closest zoom worth having: where one image pixel fills one output sample (a cell for
    /// text, a screen pixel for pixel modes), given how many samples the whole image covers at fit.
    /// Never below 1: an image smaller than its box is shown fitted and no closer.
    public static func maximumZoom(imageWidth: Int, imageHeight: Int, fittedWidth: Int, fittedHeight: Int) -> Double {
        guard fittedWidth > 0, fittedHeight > 0 else { return 1 }
        return max(1, min(Double(imageWidth) / Double(fittedWidth), Double(imageHeight) / Double(fittedHeight)))
    }
}

extension Viewport.Region {
    /// All of `pixels`.
    public init(covering pixels: PixelBuffer) {
        self.init(x: 0, y: 0, width: Double(pixels.width), height: Double(pixels.height))
    }
}

extension Viewport {
    /// The visible part of an image of `size` whose pixels (perhaps decoded smaller) are `pixels`:
    /// in the image's own units, for the layout, and in the pixels', for the scaler. Nil at fit.
    public func visibleRegion(
        of size: (width: Int, height: Int), in pixels: PixelBuffer, boxAspect: Double
    ) -> (image: Region, pixels: Region)? {
        guard !isFit, size.width > 0, size.height > 0 else { return nil }
        let visible = region(width: Double(size.width), height: Double(size.height), boxAspect: boxAspect)
        let scaleX = Double(pixels.width) / Double(size.width)
        let scaleY = Double(pixels.height) / Double(size.height)
        return (
            visible,
            Region(x: visible.x * scaleX, y: visible.y * scaleY, width: visible.width * scaleX, height: visible.height * scaleY)
        )
    }

    /// The pixel size to decode a whole image of `width × height` at so that its `visible` part
    /// gets at least `samples` across and down: never more than the image has.
    public static func decodeSize(
        width: Int, height: Int, showing visible: Region, samples: (width: Int, height: Int)
    ) -> (width: Int, height: Int) {
        guard visible.width > 0, visible.height > 0 else { return (min(width, samples.width), min(height, samples.height)) }
        let scale = min(1, max(Double(samples.width) / visible.width, Double(samples.height) / visible.height))
        return (min(width, Int((Double(width) * scale).rounded(.up))), min(height, Int((Double(height) * scale).rounded(.up))))
    }
}
