import CSPNG
import Foundation
import ImgviewCore

/// Decodes PNG with libspng to RGBA8, every bit depth, palette, grey, interlace and tRNS included.
///
/// Decodes row by row (libspng's progressive mode), so a file that ends early keeps the
/// rows that arrived, shows the rest as transparent (the background) and comes back with
/// a warning; a file that ends before the first row is an error. See DECISIONS.md.
public struct PNGDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data) throws(ImageDecodingError) -> ImageHeader {
        let (width, height) = try withContext(bytes) { context throws(ImageDecodingError) in try storedSize(context) }
        return ImageHeader(format: .png, storedWidth: width, storedHeight: height, orientation: ExifReader.orientation(in: bytes))
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        try withContext(bytes) { context throws(ImageDecodingError) in
            let (width, height) = try storedSize(context)
            guard width.multipliedReportingOverflow(by: height).partialValue <= request.maxPixelCount else {
                throw .tooLarge(width: width, height: height, limit: request.maxPixelCount)
            }
            let format = Int32(SPNG_FMT_RGBA8.rawValue)
            var size = 0
            try check(spng_decoded_image_size(context, format, &size))
            guard size == width * height * 4 else { throw .corrupt(.png, detail: "unexpected decoded size") }
            let start = spng_decode_image(context, nil, 0, format, Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue))
            // libspng needs whole chunks: a file cut inside its first IDAT chunk has no row to show.
            if Self.isEndOfData(start) { throw .truncated(.png) }
            try check(start)

            // Zero is transparent black: rows that never arrive show the background.
            var output = [UInt8](repeating: 0, count: size)
            let rowLength = width * 4
            var rowsDecoded = 0
            var failure: Int32 = 0
            var cancelled = false
            output.withUnsafeMutableBufferPointer { buffer in
                while true {
                    if request.cancellation.isCancelled {
                        cancelled = true
                        return
                    }
                    var info = spng_row_info()
                    var status = spng_get_row_info(context, &info)
                    if status == 0 {
                        let row = Int(info.row_num)
                        guard row < height else { status = Int32(SPNG_EOVERFLOW.rawValue); failure = status; return }
                        status = spng_decode_row(context, buffer.baseAddress! + row * rowLength, rowLength)
                    }
                    if status == Int32(SPNG_EOI.rawValue) { return }
                    if status != 0 { failure = status; return }
                    rowsDecoded += 1
                }
            }
            if cancelled { throw .cancelled }
            var warning: String?
            if failure != 0 {
                if rowsDecoded == 0 {
                    if Self.isEndOfData(failure) { throw .truncated(.png) }
                    throw .corrupt(.png, detail: Self.errorText(failure))
                }
                warning = "damaged or truncated PNG (\(Self.errorText(failure))); showing the rows that could be decoded"
            }
            let stored = PixelBuffer(width: width, height: height, bytes: output)
            return DecodedImage(header: header, pixels: header.orientation.apply(to: stored), warning: warning)
        }
    }

    private func withContext<T>(_ bytes: Data, _ body: (OpaquePointer) throws(ImageDecodingError) -> T) throws(ImageDecodingError) -> T {
        guard let context = spng_ctx_new(0) else { throw .corrupt(.png, detail: "libspng could not start") }
        defer { spng_ctx_free(context) }
        // libspng refuses chunks above these sizes itself; the pixel limit is checked by us.
        try check(spng_set_chunk_limits(context, 64 << 20, 64 << 20))
        try check(spng_set_image_limits(context, UInt32(Int32.max), UInt32(Int32.max)))
        let result: Result<T, ImageDecodingError> = bytes.withUnsafeBytes { buffer in
            // libspng reads from the pointer only while the context lives, inside this closure.
            do throws(ImageDecodingError) {
                try check(spng_set_png_buffer(context, buffer.baseAddress, buffer.count))
                return .success(try body(context))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The size as stored, from IHDR.
    private func storedSize(_ context: OpaquePointer) throws(ImageDecodingError) -> (width: Int, height: Int) {
        var ihdr = spng_ihdr()
        let status = spng_get_ihdr(context, &ihdr)
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

    private static func errorText(_ status: Int32) -> String {
        String(cString: spng_strerror(status))
    }
}
