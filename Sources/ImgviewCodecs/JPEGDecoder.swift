import CJPEG
import Foundation
import ImgviewCore

/// Decodes JPEG with libjpeg-turbo's libjpeg API at the smallest DCT scale that still covers
/// the size asked for, a few rows at a time so that a cancelled decode stops between rows.
///
/// CMYK and YCCK files are decoded as CMYK and converted here. A file that ends early keeps
/// what decoded (libjpeg fills the rest with grey) and comes back with a warning; see
/// DECISIONS.md.
public struct JPEGDecoder: ImageDecoding {
    public init() {}

    public func inspect(_ bytes: Data) throws(ImageDecodingError) -> ImageHeader {
        let (width, height, _) = try JPEGSession.with(bytes) { session throws(ImageDecodingError) in try session.readHeader() }
        return ImageHeader(format: .jpeg, storedWidth: width, storedHeight: height, orientation: ExifReader.orientation(in: bytes))
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        guard width.multipliedReportingOverflow(by: height).partialValue <= request.maxPixelCount else {
            throw .tooLarge(width: width, height: height, limit: request.maxPixelCount)
        }
        if request.cancellation.isCancelled { throw .cancelled }
        // The minimum size is upright; the DCT scale applies to the stored image.
        let minimum = request.minimumSize.map { header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
        let eighths = Self.scaleInEighths(width: width, height: height, covering: minimum)
        let (stored, problem) = try JPEGSession.with(bytes) { session throws(ImageDecodingError) in
            let isCMYK = try session.readHeader().isCMYK
            let pixels = try session.decodeRows(scaleInEighths: eighths, cmyk: isCMYK, cancellation: request.cancellation)
            return (pixels, session.warning)
        }
        let warning = problem.map { "damaged or truncated JPEG (\($0)); showing what could be decoded" }
        return DecodedImage(header: header, pixels: header.orientation.apply(to: stored), warning: warning)
    }

    /// The smallest scale, in eighths (1...8), whose both sides reach `minimum`; 8 (full size) when none is asked.
    static func scaleInEighths(width: Int, height: Int, covering minimum: (Int, Int)?) -> Int {
        guard let (minimumWidth, minimumHeight) = minimum else { return 8 }
        // Only reductions: enlarging in the decoder costs memory and buys nothing.
        for eighths in 1...8 {
            let (scaledWidth, scaledHeight) = scaled(width: width, height: height, eighths: eighths)
            if scaledWidth >= minimumWidth, scaledHeight >= minimumHeight { return eighths }
        }
        return 8
    }

    /// The output size libjpeg gives for a scale of `eighths`/8 (it rounds up).
    static func scaled(width: Int, height: Int, eighths: Int) -> (Int, Int) {
        ((width * eighths + 7) / 8, (height * eighths + 7) / 8)
    }
}

/// One libjpeg decompressor reading from a buffer, alive only inside `with`.
private final class JPEGSession {
    /// libjpeg keeps pointers to both (the error manager from the decompressor, the decompressor
    /// from its own structures), so they live at fixed addresses of their own.
    private let info = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
    private let errors = UnsafeMutablePointer<imgview_jpeg_errors>.allocate(capacity: 1)
    private var isCreated = false

    /// Runs `body` with a decompressor reading `bytes`, and destroys it after.
    static func with<T>(_ bytes: Data, _ body: (JPEGSession) throws(ImageDecodingError) -> T) throws(ImageDecodingError) -> T {
        let result: Result<T, ImageDecodingError> = bytes.withUnsafeBytes { buffer in
            let session = JPEGSession()
            defer { session.close() }
            do throws(ImageDecodingError) {
                try session.start(reading: buffer)
                return .success(try body(session))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init() {
        info.initialize(to: jpeg_decompress_struct())
        errors.initialize(to: imgview_jpeg_errors())
    }

    private func start(reading buffer: UnsafeRawBufferPointer) throws(ImageDecodingError) {
        guard imgview_jpeg_create(info, errors) == 0 else {
            throw .corrupt(.jpeg, detail: "libjpeg could not start: \(Self.text(&errors.pointee.message))")
        }
        isCreated = true
        guard let base = buffer.baseAddress, !buffer.isEmpty else { throw .truncated(.jpeg) }
        guard imgview_jpeg_mem_src(info, base.assumingMemoryBound(to: UInt8.self), UInt(buffer.count)) == 0 else {
            throw .corrupt(.jpeg, detail: Self.text(&errors.pointee.message))
        }
    }

    private func close() {
        if isCreated { imgview_jpeg_destroy(info) }
        isCreated = false
        info.deallocate()
        errors.deallocate()
    }

    /// The first warning libjpeg gave (a premature end, corrupt data), if any.
    var warning: String? {
        errors.pointee.warnings > 0 ? Self.text(&errors.pointee.warning) : nil
    }

    /// Reads the markers up to the first scan.
    func readHeader() throws(ImageDecodingError) -> (width: Int, height: Int, isCMYK: Bool) {
        let status = imgview_jpeg_read_header(info)
        guard status == JPEG_HEADER_OK else {
            // With no frame header there is nothing to show: a truncation this early is fatal.
            if status >= 0 || Self.saysDataEnded(warning ?? Self.text(&errors.pointee.message)) { throw .truncated(.jpeg) }
            throw .corrupt(.jpeg, detail: Self.text(&errors.pointee.message))
        }
        guard info.pointee.image_width > 0, info.pointee.image_height > 0 else { throw .corrupt(.jpeg, detail: "zero width or height") }
        let isCMYK = info.pointee.jpeg_color_space == JCS_CMYK || info.pointee.jpeg_color_space == JCS_YCCK
        return (Int(info.pointee.image_width), Int(info.pointee.image_height), isCMYK)
    }

    /// Decodes every row at `eighths`/8 of the stored size, as RGBA.
    func decodeRows(scaleInEighths eighths: Int, cmyk: Bool, cancellation: CancellationFlag) throws(ImageDecodingError) -> PixelBuffer {
        info.pointee.scale_num = UInt32(eighths)
        info.pointee.scale_denom = 8
        info.pointee.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA
        // What TurboJPEG's FASTDCT and FASTUPSAMPLE flags set: a preview cannot tell the difference.
        info.pointee.dct_method = JDCT_IFAST
        info.pointee.do_fancy_upsampling = 0
        guard imgview_jpeg_start_decompress(info) == 1 else { throw failure() }
        let width = Int(info.pointee.output_width)
        let height = Int(info.pointee.output_height)
        guard width > 0, height > 0, info.pointee.output_components == 4 else {
            throw .corrupt(.jpeg, detail: "unexpected output of \(info.pointee.output_components) components")
        }
        let rowLength = width * 4
        var output = [UInt8](repeating: 0, count: rowLength * height)
        var failed = false
        var cancelled = false
        output.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let batch = max(1, Int(info.pointee.rec_outbuf_height))
            var rows = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: batch)
            while info.pointee.output_scanline < info.pointee.output_height {
                if cancellation.isCancelled {
                    cancelled = true
                    return
                }
                let first = Int(info.pointee.output_scanline)
                let count = min(batch, height - first)
                for index in 0..<count { rows[index] = base + (first + index) * rowLength }
                let read = rows.withUnsafeMutableBufferPointer { pointers in
                    imgview_jpeg_read_scanlines(info, pointers.baseAddress, UInt32(count))
                }
                if read < 0 {
                    failed = true
                    return
                }
            }
        }
        if cancelled { throw .cancelled }
        // Rows that decoded before a fatal error are still worth showing, as a truncated file's are.
        if failed {
            guard info.pointee.output_scanline > 0 else { throw failure() }
            errors.pointee.warnings += 1
            if errors.pointee.warnings == 1 { errors.pointee.warning = errors.pointee.message }
        } else {
            _ = imgview_jpeg_finish_decompress(info)
        }
        if cmyk { Self.convertCMYKToRGBA(&output) }
        return PixelBuffer(width: width, height: height, bytes: output)
    }

    private func failure() -> ImageDecodingError {
        let detail = Self.text(&errors.pointee.message)
        return Self.saysDataEnded(detail) ? .truncated(.jpeg) : .corrupt(.jpeg, detail: detail)
    }

    /// A message buffer as a string.
    private static func text<Buffer>(_ buffer: inout Buffer) -> String {
        CText.string(&buffer)
    }

    /// Whether a libjpeg message says the data ran out.
    private static func saysDataEnded(_ message: String) -> Bool {
        message.contains("end of") || message.contains("Premature") || message.contains("insufficient")
    }

    /// CMYK as Adobe writes it (inverted: 255 means no ink), which is what JPEG files carry.
    private static func convertCMYKToRGBA(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in stride(from: 0, to: buffer.count, by: 4) {
                let k = UInt32(buffer[index + 3])
                buffer[index] = UInt8((UInt32(buffer[index]) * k + 127) / 255)
                buffer[index + 1] = UInt8((UInt32(buffer[index + 1]) * k + 127) / 255)
                buffer[index + 2] = UInt8((UInt32(buffer[index + 2]) * k + 127) / 255)
                buffer[index + 3] = 255
            }
        }
    }
}
