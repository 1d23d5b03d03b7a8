import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The pixel counterpart of `PreviewRenderer`: fits an image into a box of cells at the
/// terminal's cell size, scales it in linear light over the background, and encodes it in one
/// graphics protocol, giving the bytes to write at the cursor.
///
/// Synchronous, heavy work (a scale, and for sixel a palette and dithering): run it off any
/// actor that must stay responsive.
public struct GraphicsRenderer: Sendable {
    public var options: GraphicsOptions
    /// Which part of the image to show. Never closer than one image pixel to one screen pixel:
    /// a closer view is shown at that zoom (`maximumZoom`).
    public var viewport: Viewport
    /// Writes the PNG iTerm2 previews carry.
    public var pngEncoder: (any PNGEncoding)?

    public init(options: GraphicsOptions, viewport: Viewport = .fit, pngEncoder: (any PNGEncoding)?) {
        self.options = options
        self.viewport = viewport
        self.pngEncoder = pngEncoder
    }

    /// Where an upright image of `width × height` goes, fitted whole.
    public func layout(width: Int, height: Int) -> GraphicsLayout {
        GraphicsLayout.fitting(width: width, height: height, columns: options.boxColumns, rows: options.boxRows, cell: options.cell)
    }

    /// The closest zoom for an upright image of `width × height`: one image pixel to one screen
    /// pixel. An image that fits its box whole at no more than its own pixels is not zoomed.
    public func maximumZoom(width: Int, height: Int) -> Double {
        let fitted = layout(width: width, height: height)
        return Viewport.maximumZoom(
            imageWidth: width, imageHeight: height, fittedWidth: fitted.pixelWidth, fittedHeight: fitted.pixelHeight)
    }

    /// The pixel size a decoder must at least deliver: one and a half times the size it will be
    /// shown at, or zoomed in, the whole image at the scale that gives the visible part that many.
    ///
    /// More than the size shown: decoders reduce by averaging blocks (JPEG's DCT scaling, the
    /// reducers of the other formats), a box filter, and Lanczos after it keeps the image sharp
    /// only with more decoded pixels than it shows (DECISIONS.md, "Pixel previews: decoded with
    /// room to spare").
    public func minimumDecodeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        decodeSize(width: width, height: height, withRoom: true)
    }

    /// The pixels the preview shows, without the room `minimumDecodeSize` adds: what a decoder
    /// whose library holds the whole image may come down to when the room does not fit beside it
    /// (`DecodeRequest.smallestSize`).
    public func smallestDecodeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        decodeSize(width: width, height: height, withRoom: false)
    }

    private func decodeSize(width: Int, height: Int, withRoom: Bool) -> (width: Int, height: Int) {
        // One and a half times the pixels shown, rounded up; or just them.
        let room = { (pixels: Int) in withRoom ? (pixels * 3 + 1) / 2 : pixels }
        let view = shownViewport(width: width, height: height)
        guard !view.isFit else {
            let layout = layout(width: width, height: height)
            return (min(width, room(layout.pixelWidth)), min(height, room(layout.pixelHeight)))
        }
        let visible = view.region(width: Double(width), height: Double(height), boxAspect: options.boxAspect)
        let layout = GraphicsLayout.fitting(
            width: visible.width, height: visible.height, columns: options.boxColumns, rows: options.boxRows, cell: options.cell)
        return Viewport.decodeSize(
            width: width, height: height, showing: visible, samples: (room(layout.pixelWidth), room(layout.pixelHeight)))
    }

    /// Renders `pixels`, laid out with the proportions of `imageSize` (the image's own upright
    /// size) or else of the pixels; zoomed in, the visible part of them fills the box.
    public func render(_ pixels: PixelBuffer, imageSize: (width: Int, height: Int)? = nil) throws(GraphicsRenderingError) -> GraphicsPreview
    {
        let size = imageSize ?? (pixels.width, pixels.height)
        let visible = shownViewport(width: size.width, height: size.height)
            .visibleRegion(of: size, in: pixels, boxAspect: options.boxAspect)
        let fitted =
            visible.map {
                GraphicsLayout.fitting(
                    width: $0.image.width, height: $0.image.height, columns: options.boxColumns, rows: options.boxRows, cell: options.cell)
            } ?? layout(width: size.width, height: size.height)
        let layout = options.wholeCells ? Self.inSixelBands(fitted, cell: options.cell) : fitted
        var image = LanczosScaler(background: options.background)
            .scale(pixels, region: visible?.pixels, toWidth: layout.pixelWidth, height: layout.pixelHeight)
        if options.wholeCells {
            image = Self.padded(
                image, width: layout.columns * options.cell.width, height: Self.bandedHeight(rows: layout.rows, cell: options.cell),
                with: options.background)
        }
        let bytes: [UInt8]
        var placeholders: KittyPlaceholders?
        switch options.graphics {
        case .sixel:
            bytes = SixelEncoder(
                colorRegisters: options.colorRegisters, passthrough: options.passthrough,
                registerZero: options.wholeCells ? options.background : nil
            ).encode(image)
        case .kitty where options.usesPlaceholders:
            // The terminal fits the image into the cells, keeping its aspect: these cells are the layout's.
            let text = KittyPlaceholders(
                imageID: KittyPlaceholders.imageID(for: options.imageID), columns: layout.columns, rows: layout.rows)
            bytes = KittyGraphicsEncoder(passthrough: options.passthrough)
                .displayVirtually(.rgb(image), id: text.imageID, columns: text.columns, rows: text.rows)
            placeholders = text
        case .kitty:
            // Raw pixels: compressing them took longer than sending them to a local terminal (DECISIONS.md).
            bytes = KittyGraphicsEncoder(passthrough: options.passthrough)
                .display(.rgb(image), id: options.imageID, movesCursor: options.movesCursor)
        case .iterm:
            guard let pngEncoder else { throw .noPNGEncoder }
            bytes = try iTermImage(image, layout: layout, encoder: pngEncoder)
        }
        return GraphicsPreview(
            layout: layout, bytes: bytes, graphics: options.graphics, imageID: placeholders?.imageID ?? options.imageID,
            placeholders: placeholders)
    }
}

extension GraphicsRenderer {
    /// The viewport as shown: zoomed no closer than `maximumZoom` for the image's size.
    private func shownViewport(width: Int, height: Int) -> Viewport {
        guard !viewport.isFit else { return viewport }
        let maximum = maximumZoom(width: width, height: height)
        guard viewport.zoom > maximum else { return viewport }
        return Viewport(zoom: maximum, centerX: viewport.centerX, centerY: viewport.centerY)
    }

    /// iTerm2's sequence for `image`. Through tmux, one larger than a passthrough packet would be
    /// dropped: it is sent in strips of whole cell rows, each its own sequence and packet, drawn
    /// one under the other (the last padded with the background to whole cells, so the terminal
    /// scales none of them).
    private func iTermImage(
        _ image: RGBImage, layout: GraphicsLayout, encoder: any PNGEncoding
    ) throws(GraphicsRenderingError)
        -> [UInt8]
    {
        let iTerm = ITermImageEncoder(passthrough: options.passthrough)
        let whole = iTerm.display(png: try png(image, encoder), layout: layout)
        guard options.passthrough, whole.count > TmuxPlacement.packetLimit, layout.rows > 1 else { return whole }
        var strips = max(2, (whole.count + TmuxPlacement.packetLimit - 1) / TmuxPlacement.packetLimit)
        while true {
            let rowsPerStrip = (layout.rows + strips - 1) / strips
            var bytes: [UInt8] = []
            var fits = true
            for top in stride(from: 0, to: layout.rows, by: rowsPerStrip) {
                let rows = min(rowsPerStrip, layout.rows - top)
                let strip = Self.rows(
                    of: image, from: top * options.cell.height, count: rows * options.cell.height, padding: options.background)
                let stripLayout = GraphicsLayout(pixelWidth: image.width, pixelHeight: strip.height, columns: layout.columns, rows: rows)
                let sequence = iTerm.display(png: try png(strip, encoder), layout: stripLayout, rowsDown: top)
                fits = fits && sequence.count <= TmuxPlacement.packetLimit
                bytes += sequence
            }
            if fits || rowsPerStrip == 1 { return bytes }
            strips *= 2
        }
    }

    /// The height a sixel image `rows` cells high is padded to for tmux: the last whole band of six
    /// pixel rows inside its cells. tmux stores a sixel in whole bands, and one that reaches past
    /// its last cell takes one more row of cells in tmux's grid (filled, on the terminal, with
    /// register 0).
    static func bandedHeight(rows: Int, cell: CellPixelSize) -> Int {
        max(6, rows * cell.height / 6 * 6)
    }

    /// `layout`, a little smaller where its pixels reach into the last few rows of its last cell,
    /// past the last whole band of six (at most five pixel rows fewer).
    static func inSixelBands(_ layout: GraphicsLayout, cell: CellPixelSize) -> GraphicsLayout {
        let height = bandedHeight(rows: layout.rows, cell: cell)
        guard layout.pixelHeight > height else { return layout }
        let width = max(1, (layout.pixelWidth * height + layout.pixelHeight / 2) / layout.pixelHeight)
        return GraphicsLayout(
            pixelWidth: width, pixelHeight: height, columns: (width + cell.width - 1) / cell.width,
            rows: (height + cell.height - 1) / cell.height)
    }

    /// `image` at the top left of `width × height`, the rest `padding`.
    static func padded(_ image: RGBImage, width: Int, height: Int, with padding: RGBColor) -> RGBImage {
        guard width > image.width || height > image.height else { return image }
        let (width, height) = (max(width, image.width), max(height, image.height))
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for index in stride(from: 0, to: bytes.count, by: 3) {
            bytes[index] = padding.red
            bytes[index + 1] = padding.green
            bytes[index + 2] = padding.blue
        }
        let rowBytes = image.width * 3
        for row in 0..<image.height {
            bytes.replaceSubrange(
                (row * width * 3)..<(row * width * 3 + rowBytes), with: image.bytes[(row * rowBytes)..<((row + 1) * rowBytes)])
        }
        return RGBImage(width: width, height: height, bytes: bytes)
    }

    /// `count` rows of `image` from `top`, rows past its bottom in `padding`.
    static func rows(of image: RGBImage, from top: Int, count: Int, padding: RGBColor) -> RGBImage {
        let rowBytes = image.width * 3
        let available = max(0, min(count, image.height - top))
        var bytes = Array(image.bytes[(top * rowBytes)..<((top + available) * rowBytes)])
        bytes.reserveCapacity(count * rowBytes)
        for _ in 0..<((count - available) * image.width) { bytes += [padding.red, padding.green, padding.blue] }
        return RGBImage(width: image.width, height: count, bytes: bytes)
    }

    private func png(_ image: RGBImage, _ encoder: any PNGEncoding) throws(GraphicsRenderingError) -> Data {
        do {
            return try encoder.png(image)
        } catch {
            throw .png(error)
        }
    }
}

/// Why a pixel preview could not be made.
public enum GraphicsRenderingError: Error, Sendable, Equatable {
    /// iTerm2 images carry a PNG, and no encoder was configured.
    case noPNGEncoder
    case png(PNGEncodingError)

    public var message: String {
        switch self {
        case .noPNGEncoder: "no PNG encoder for an iTerm2 image"
        case .png(let error): "could not write the PNG for the terminal: \(error.detail)"
        }
    }
}

/// Everything a pixel preview depends on besides the image: the cache key of a rendered one.
public struct GraphicsOptions: Sendable, Hashable {
    public var graphics: GraphicsProtocol
    /// The box to fit in, in cells.
    public var columns: Int
    public var rows: Int
    public var cell: CellPixelSize
    /// What transparent pixels are composed over: the terminal's background.
    public var background: RGBColor
    /// Sixel colour registers the terminal has (at most 256 are used).
    public var colorRegisters: Int
    /// Wrap for tmux's passthrough.
    public var passthrough: Bool
    /// The kitty image id, so the image can be replaced and deleted.
    public var imageID: UInt32
    /// Whether the cursor ends after the image (a command's output) or stays (a full-screen program).
    public var movesCursor: Bool
    /// Sixel for tmux to draw itself (3.4 and later): padded with the background to whole cells
    /// wide and to the last band of six pixel rows inside its last cell (`bandedHeight`), and
    /// register 0 the background. tmux counts an image's cells from its bands and writes it on to
    /// the terminal filling what no pixel covers (of its cells) with register 0.
    public var wholeCells: Bool
    /// kitty through tmux to a terminal with Unicode placeholders: the image is sent with a virtual
    /// placement under a placeholder id (`KittyPlaceholders.imageID(for:)` of `imageID`) and shown
    /// by text (`GraphicsPreview.placeholders`), at most `KittyPlaceholders.largestSpan` cells each way.
    public var kittyPlaceholders: Bool

    public init(
        graphics: GraphicsProtocol, columns: Int, rows: Int, cell: CellPixelSize = .fallback,
        background: RGBColor = RGBColor(red: 0, green: 0, blue: 0), colorRegisters: Int = 256, passthrough: Bool = false,
        imageID: UInt32 = 1, movesCursor: Bool = true, wholeCells: Bool = false, kittyPlaceholders: Bool = false
    ) {
        self.graphics = graphics
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.cell = cell
        self.background = background
        self.colorRegisters = colorRegisters
        self.passthrough = passthrough
        self.imageID = imageID
        self.movesCursor = movesCursor
        self.wholeCells = wholeCells
        self.kittyPlaceholders = kittyPlaceholders
    }

    /// The box's width divided by its height in screen pixels.
    public var boxAspect: Double {
        Double(boxColumns * cell.width) / Double(boxRows * cell.height)
    }

    /// The box the image is fitted in: no larger than placeholders can number.
    var boxColumns: Int { usesPlaceholders ? min(columns, KittyPlaceholders.largestSpan) : columns }
    var boxRows: Int { usesPlaceholders ? min(rows, KittyPlaceholders.largestSpan) : rows }
    var usesPlaceholders: Bool { kittyPlaceholders && graphics == .kitty }
}

/// A rendered pixel preview: the bytes to write at the top-left cell, the cells they cover, and
/// what a program that takes it off the screen again needs to know.
public struct GraphicsPreview: Sendable, Equatable {
    public var layout: GraphicsLayout
    public var bytes: [UInt8]
    public var graphics: GraphicsProtocol
    /// The kitty image id the bytes carry (what deletes it); meaningless for the other protocols.
    public var imageID: UInt32
    /// A kitty image sent with a virtual placement: `bytes` only send it (wrapped for tmux, drawn
    /// nowhere), and this text, written in its cells, shows it.
    public var placeholders: KittyPlaceholders?

    public init(
        layout: GraphicsLayout, bytes: [UInt8], graphics: GraphicsProtocol, imageID: UInt32 = 1, placeholders: KittyPlaceholders? = nil
    ) {
        self.layout = layout
        self.bytes = bytes
        self.graphics = graphics
        self.imageID = imageID
        self.placeholders = placeholders
    }
}
