internal import CRSVG
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Draws SVG with librsvg and cairo, opened on first use, at the size the preview asks for.
///
/// An SVG has no pixels of its own. Its header says it is scalable and gives it a stored size of
/// its shape at `ImageHeader.scalableSide` pixels, so the pipeline asks for what the box needs,
/// as from any large image, and a closer zoom asks for more; the decode then draws at the
/// smallest size of that shape that covers `request.minimumSize` (its own size when none is
/// asked), within `request.maxPixelCount`. The shape is the document's own size, else its
/// viewBox, else 300×150 as in CSS. Before librsvg sees a file, `SVGScan` refuses what would
/// take it too long or too much memory. librsvg is given no base URI: it reads nothing outside
/// the file.
public struct SVGDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try SVGScan.check(bytes)
        return try SVGDocument.with(bytes) { document in document.header }
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        try SVGScan.check(bytes)
        if request.cancellation.isCancelled { throw .cancelled }
        // librsvg cannot be stopped once it draws: cancellation is looked at before and after.
        let image = try SVGDocument.with(bytes) { document throws(ImageDecodingError) in try document.draw(request: request) }
        if request.cancellation.isCancelled { throw .cancelled }
        return image
    }
}

/// One parsed SVG document, alive only inside `with`.
private struct SVGDocument {
    let rsvg: imgview_rsvg
    let handle: UnsafeMutableRawPointer
    /// The shape to draw, in CSS pixels: the document's size, its viewBox or 300×150.
    let shape: (width: Double, height: Double)
    let header: ImageHeader

    static func with<T>(_ bytes: Data, _ body: (SVGDocument) throws(ImageDecodingError) -> T) throws(ImageDecodingError) -> T {
        let rsvg = try SVGLibrary.functions()
        var error: UnsafeMutablePointer<imgview_gerror>?
        let parsed = bytes.withUnsafeBytes { raw in
            raw.bindMemory(to: UInt8.self).baseAddress.flatMap { rsvg.rsvg_handle_new_from_data($0, raw.count, &error) }
        }
        guard let handle = parsed else { throw Self.failure(error, rsvg: rsvg) }
        defer { rsvg.g_object_unref(handle) }
        return try body(SVGDocument(rsvg: rsvg, handle: handle))
    }

    private init(rsvg: imgview_rsvg, handle: UnsafeMutableRawPointer) {
        self.rsvg = rsvg
        self.handle = handle
        var (width, height) = (0.0, 0.0)
        let sized = rsvg.rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) != 0
        var natural: ImageDimensions?
        if sized, width.isFinite, height.isFinite, width > 0, height > 0 {
            shape = (width, height)
            // A length is any number the text says: a side past what an Int holds is no size to show.
            if let naturalWidth = Int(exactly: width.rounded()), let naturalHeight = Int(exactly: height.rounded()) {
                natural = ImageDimensions(width: max(1, naturalWidth), height: max(1, naturalHeight))
            }
        } else {
            var hasViewBox: Int32 = 0
            var viewBox = imgview_rsvg_rectangle()
            rsvg.rsvg_handle_get_intrinsic_dimensions(handle, nil, nil, nil, nil, &hasViewBox, &viewBox)
            let usable = hasViewBox != 0 && viewBox.width.isFinite && viewBox.height.isFinite && viewBox.width > 0 && viewBox.height > 0
            shape = usable ? (viewBox.width, viewBox.height) : (300, 150)
        }
        let stored = Self.fitted(shape, longerSide: Double(ImageHeader.scalableSide))
        var header = ImageHeader(format: .svg, storedWidth: stored.width, storedHeight: stored.height, orientation: .up)
        header.isScalable = true
        header.naturalSize = natural
        self.header = header
    }

    /// Draws the document at the smallest size of its shape that covers the request, into straight RGBA.
    func draw(request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        var size = shape
        if let minimum = request.minimumSize {
            let scale = max(Double(minimum.width) / shape.width, Double(minimum.height) / shape.height)
            size = (shape.width * scale, shape.height * scale)
        }
        // Never past the header's size, nor the pixel limit.
        let longer = max(size.width, size.height)
        if longer > Double(ImageHeader.scalableSide) { size = Self.scaled(size, by: Double(ImageHeader.scalableSide) / longer) }
        let pixels = size.width * size.height
        if pixels > Double(request.maxPixelCount) { size = Self.scaled(size, by: (Double(request.maxPixelCount) / pixels).squareRoot()) }
        var (width, height) = (max(1, Int(size.width.rounded(.up))), max(1, Int(size.height.rounded(.up))))
        if width * height > request.maxPixelCount { (width, height) = (max(1, Int(size.width)), max(1, Int(size.height))) }

        let stride = Int(rsvg.cairo_format_stride_for_width(Int32(IMGVIEW_CAIRO_FORMAT_ARGB32), Int32(width)))
        guard stride >= width * 4 else { throw .corrupt(.svg, detail: "cairo cannot draw \(width)×\(height) pixels") }
        var argb = [UInt8](repeating: 0, count: stride * height)
        var renderError: UnsafeMutablePointer<imgview_gerror>?
        let drawn: Bool = argb.withUnsafeMutableBufferPointer { buffer in
            guard
                let surface = rsvg.cairo_image_surface_create_for_data(
                    buffer.baseAddress!, Int32(IMGVIEW_CAIRO_FORMAT_ARGB32), Int32(width), Int32(height), Int32(stride))
            else { return false }
            defer { rsvg.cairo_surface_destroy(surface) }
            guard rsvg.cairo_surface_status(surface) == IMGVIEW_CAIRO_STATUS_SUCCESS, let cairo = rsvg.cairo_create(surface) else {
                return false
            }
            defer { rsvg.cairo_destroy(cairo) }
            var viewport = imgview_rsvg_rectangle(x: 0, y: 0, width: Double(width), height: Double(height))
            let rendered = rsvg.rsvg_handle_render_document(handle, cairo, &viewport, &renderError) != 0
            rsvg.cairo_surface_flush(surface)
            return rendered
        }
        var warning: String?
        if !drawn {
            // What was drawn before the error stays (librsvg draws element by element).
            let detail = renderError.map {
                TerminalText.sanitized(String(cString: $0.pointee.message).trimmingWhitespace())
            }
            warning = "damaged SVG (\(detail ?? "cairo could not draw it")); showing what could be drawn"
        }
        if let renderError { rsvg.g_error_free(renderError) }
        // SVG's colours are sRGB: there is no profile to hand on.
        return DecodedImage(header: header, pixels: Self.straightRGBA(argb, width: width, height: height, stride: stride), warning: warning)
    }

    /// The size of `shape` whose longer side is `longerSide`, each side at least 1.
    private static func fitted(_ shape: (width: Double, height: Double), longerSide: Double) -> (width: Int, height: Int) {
        let scale = longerSide / max(shape.width, shape.height)
        return (max(1, Int((shape.width * scale).rounded())), max(1, Int((shape.height * scale).rounded())))
    }

    private static func scaled(_ size: (width: Double, height: Double), by factor: Double) -> (width: Double, height: Double) {
        (size.width * factor, size.height * factor)
    }

    /// cairo's premultiplied native-endian ARGB32 (bytes B, G, R, A here) as straight RGBA.
    private static func straightRGBA(_ argb: [UInt8], width: Int, height: Int, stride: Int) -> PixelBuffer {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        argb.withUnsafeBufferPointer { source in
            rgba.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    for x in 0..<width {
                        let from = y * stride + x * 4
                        let to = (y * width + x) * 4
                        let alpha = Int(source[from + 3])
                        guard alpha > 0 else { continue }
                        func straight(_ value: UInt8) -> UInt8 { UInt8(min(255, (Int(value) * 255 + alpha / 2) / alpha)) }
                        target[to] = straight(source[from + 2])
                        target[to + 1] = straight(source[from + 1])
                        target[to + 2] = straight(source[from])
                        target[to + 3] = UInt8(alpha)
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, bytes: rgba)
    }

    /// librsvg's parse error as the one-line error: a cut file is "truncated".
    private static func failure(_ error: UnsafeMutablePointer<imgview_gerror>?, rsvg: imgview_rsvg) -> ImageDecodingError {
        guard let error else { return .corrupt(.svg, detail: "librsvg could not read it") }
        defer { rsvg.g_error_free(error) }
        let message = String(cString: error.pointee.message).trimmingWhitespace()
        if message.contains("Premature end of data") { return .truncated(.svg) }
        return .corrupt(.svg, detail: TerminalText.sanitized(message))
    }
}
