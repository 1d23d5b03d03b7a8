internal import CSPNG
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes PNG with libspng to RGBA8, every bit depth, palette, grey, interlace and tRNS included.
///
/// Decodes row by row (libspng's progressive mode) into a `RowDownscaler`, so memory follows
/// the size asked for, not the size the file declares; a file that ends early keeps the rows
/// that arrived, shows the rest as transparent (the background) and comes back with a warning;
/// a file that ends before the first row is an error. See DECISIONS.md. An animated PNG (APNG)
/// plays through `APNGDecoder`; when its animation is broken, its default image shows, as in browsers.
public struct PNGDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let animation = bytes.withUnsafeBytes { APNGStructure.read($0) }
        // An animation's walk touched every chunk's header; a mapped file's pages go again before the rows.
        if animation != nil { request.releaseReadInput() }
        if let animation, animation.isAnimated {
            let (width, height) = (animation.width, animation.height)
            guard request.admits(width: width, height: height) else {
                throw Self.tooLarge(width: width, height: height, header: header, limit: request.maxPixelCount)
            }
            // The canvas, and the copy "restore to previous" keeps: past the memory allowed, the
            // default image, row by row like any PNG, is what shows.
            let canvasBytes = width.multipliedReportingOverflow(by: height * 8).partialValue
            guard request.allowsDecodeBytes(canvasBytes) else {
                var still = try decodeStill(bytes, header: header, request: request)
                if request.animates {
                    let note =
                        "animation not played (composing frames on a \(width)×\(height) canvas needs "
                        + "\((canvasBytes + 500_000) / 1_000_000) MB); showing its default image"
                    still.warning = note + (still.warning.map { "; " + $0 } ?? "")
                } else {
                    still.isFirstFrameOnly = true
                }
                return still
            }
            if let image = try APNGDecoder(structure: animation).decode(bytes, header: header, request: request) { return image }
        }
        var still = try decodeStill(bytes, header: header, request: request)
        if let problem = animation?.problem {
            still.header.animation = nil
            still.warning = "damaged APNG animation (\(problem)); showing its default image" + (still.warning.map { "; " + $0 } ?? "")
        }
        return still
    }

    /// The image IDAT holds, row by row: a still PNG, or an animated one's default image.
    private func decodeStill(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        var decoded = try decodeRows(bytes, header: header, request: request) { width, height, minimum, interlaced in
            RowDownscaler(sourceWidth: width, sourceHeight: height, covering: minimum, order: interlaced ? .anyOrder : .inOrder)
        }
        var warning: String?
        if let failure = decoded.failure {
            warning = "damaged or truncated PNG (\(failure)); showing the rows that could be decoded"
        }
        return DecodedImage(header: header, pixels: header.orientation.apply(to: decoded.sink.finish()), warning: warning)
    }

    /// What a row-by-row decode produced: the sink it filled, how far it got, and why it stopped early.
    struct DecodedRows<Sink: PNGRowSink> {
        var sink: Sink
        var rows: Int
        /// Adam7 passes decoded to their end (all seven, or none, for a plain image).
        var completePasses: Int
        var isInterlaced: Bool
        var failure: String?
    }

    /// "Too large" for a size the header declared too; a file whose chunks declare a size other
    /// than its header's contradicts itself, and is corrupt.
    static func tooLarge(width: Int, height: Int, header: ImageHeader, limit: Int) -> ImageDecodingError {
        guard width == header.storedWidth, height == header.storedHeight else {
            return .corrupt(
                .png, detail: "an image of \(width)×\(height) where its header says \(header.storedWidth)×\(header.storedHeight)")
        }
        return .tooLarge(width: width, height: height, limit: limit)
    }

    /// Decodes `bytes` row by row into the sink `makeSink` gives for the stored size, the
    /// stored-size minimum and whether the rows come in Adam7 passes; a file that ends after its
    /// first row ends the decode, not the call.
    func decodeRows<Sink: PNGRowSink>(
        _ bytes: Data, header: ImageHeader, request: DecodeRequest,
        makeSink: (_ width: Int, _ height: Int, _ minimum: (width: Int, height: Int)?, _ interlaced: Bool) -> Sink
    ) throws(ImageDecodingError) -> DecodedRows<Sink> {
        let spng = try PNGLibrary.functions()
        return try withContext(bytes) { context throws(ImageDecodingError) in
            let (width, height) = try storedSize(context)
            guard request.admits(width: width, height: height) else {
                throw Self.tooLarge(width: width, height: height, header: header, limit: request.maxPixelCount)
            }
            // One row is the only thing sized by the image: refuse rows that alone would cost too much.
            guard width <= Self.maxRowPixels else {
                throw Self.tooLarge(width: width, height: height, header: header, limit: request.maxPixelCount)
            }
            let format = Int32(SPNG_FMT_RGBA8.rawValue)
            let start = spng.spng_decode_image(context, nil, 0, format, Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue))
            // libspng needs whole chunks: a file cut inside its first IDAT chunk has no row to show.
            if Self.isEndOfData(start) { throw .truncated(.png) }
            try check(start)
            var ihdr = spng_ihdr()
            try check(spng.spng_get_ihdr(context, &ihdr))
            let interlaced = ihdr.interlace_method != 0

            // Rows go into the sink as they decode: memory follows the preview, not the image.
            // The minimum size is upright; the reduction applies to the stored image.
            let minimum = request.minimumSize.map { header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
            var sink = makeSink(width, height, minimum, interlaced)
            var row = [UInt8](repeating: 0, count: width * 4)
            let rowLength = width * 4
            var rowsDecoded = 0
            var lastPass = -1
            var finished = false
            var failure: Int32 = 0
            var cancelled = false
            var rowsAsked = 0
            row.withUnsafeMutableBufferPointer { buffer in
                while true {
                    if request.cancellation.isCancelled {
                        cancelled = true
                        return
                    }
                    rowsAsked += 1
                    if rowsAsked % 64 == 0 { request.releaseReadInput() }
                    var info = spng_row_info()
                    let rowStatus = spng.spng_get_row_info(context, &info)
                    if rowStatus == Int32(SPNG_EOI.rawValue) {
                        finished = true
                        return
                    }
                    if rowStatus != 0 { failure = rowStatus; return }
                    guard Int(info.row_num) < height else { failure = Int32(SPNG_EOVERFLOW.rawValue); return }
                    let status = spng.spng_decode_row(context, buffer.baseAddress!, rowLength)
                    // The last row comes with "end of image": it is decoded all the same.
                    guard status == 0 || status == Int32(SPNG_EOI.rawValue) else { failure = status; return }
                    // An interlaced pass fills only some columns of its rows, at their final places.
                    let pass = interlaced ? Int(info.pass) : -1
                    lastPass = max(lastPass, pass)
                    sink.add(row: Int(info.row_num), pixels: UnsafeBufferPointer(buffer), pass: pass)
                    rowsDecoded += 1
                    if status == Int32(SPNG_EOI.rawValue) {
                        finished = true
                        return
                    }
                }
            }
            if cancelled { throw .cancelled }
            if failure != 0, rowsDecoded == 0 {
                if Self.isEndOfData(failure) { throw .truncated(.png) }
                throw .corrupt(.png, detail: Self.errorText(failure))
            }
            // A pass is whole once a later one has begun, or the image ended.
            let completePasses = interlaced ? (finished ? 7 : max(0, lastPass)) : 0
            return DecodedRows(
                sink: sink, rows: rowsDecoded, completePasses: completePasses, isInterlaced: interlaced,
                failure: failure == 0 ? nil : Self.errorText(failure))
        }
    }

    /// The widest image decoded: one RGBA row of it is 16 MB (libspng keeps two scanlines more).
    static let maxRowPixels = 1 << 22
    /// Where each Adam7 pass starts along a row, and how far apart its pixels are.
    static let adam7FirstColumn = [0, 4, 0, 2, 0, 1, 0]
    static let adam7ColumnStep = [8, 8, 4, 4, 2, 2, 1]

    private func withContext<T>(_ bytes: Data, _ body: (OpaquePointer) throws(ImageDecodingError) -> T) throws(ImageDecodingError) -> T {
        let spng = try PNGLibrary.functions()
        guard let context = spng.spng_ctx_new(0) else { throw .corrupt(.png, detail: "libspng could not start") }
        defer { spng.spng_ctx_free(context) }
        // libspng refuses chunks above these sizes itself; the pixel limit is checked by us.
        try check(spng.spng_set_chunk_limits(context, 64 << 20, 64 << 20))
        try check(spng.spng_set_image_limits(context, UInt32(Int32.max), UInt32(Int32.max)))
        let result: Result<T, ImageDecodingError> = bytes.withUnsafeBytes { buffer in
            // libspng reads from the pointer only while the context lives, inside this closure.
            do throws(ImageDecodingError) {
                try check(spng.spng_set_png_buffer(context, buffer.baseAddress, buffer.count))
                return .success(try body(context))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The size as stored, from IHDR.
    private func storedSize(_ context: OpaquePointer) throws(ImageDecodingError) -> (width: Int, height: Int) {
        let spng = try PNGLibrary.functions()
        var ihdr = spng_ihdr()
        let status = spng.spng_get_ihdr(context, &ihdr)
        if Self.isEndOfData(status) { throw .truncated(.png) }
        try check(status)
        return (Int(ihdr.width), Int(ihdr.height))
    }

    private func check(_ status: Int32) throws(ImageDecodingError) {
        guard status == 0 else { throw .corrupt(.png, detail: Self.errorText(status)) }
    }

    /// Whether libspng stopped because the data ran out (as opposed to finding it damaged).
    private static func isEndOfData(_ status: Int32) -> Bool {
        status == Int32(SPNG_IO_EOF.rawValue) || status == Int32(SPNG_EOF.rawValue)
    }

    /// A status comes from a library already open, so its words are there to be had.
    private static func errorText(_ status: Int32) -> String {
        guard let spng = try? PNGLibrary.functions(), let text = spng.spng_strerror(status) else { return "libspng error \(status)" }
        return String(cString: text)
    }
}
