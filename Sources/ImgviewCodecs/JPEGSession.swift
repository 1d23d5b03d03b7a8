internal import CJPEG
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One libjpeg decompressor, reading a whole buffer or bytes that are still arriving: the only
/// place that calls libjpeg.
///
/// Every call that can fail goes through a wrapper in `Sources/CJPEG/shim.h`, so a fatal error
/// is a return code here, never a jump.
final class JPEGSession {
    /// What the header says, as far as decoding goes.
    struct Frame {
        var width: Int
        var height: Int
        /// CMYK or YCCK: the output is ink, C, M, Y and K per pixel, for the decoder to turn into
        /// colours (`ColorManagement.convertCMYK`).
        var isCMYK: Bool
        /// Whether an Adobe APP14 marker was there: its CMYK is stored inverted (255 means no ink).
        var hasAdobeMarker: Bool
        var isProgressive: Bool
    }

    /// libjpeg keeps pointers to these (the error manager and the data source from the
    /// decompressor), so they live at fixed addresses of their own.
    private let info = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
    private let errors = UnsafeMutablePointer<imgview_jpeg_errors>.allocate(capacity: 1)
    private var stream: UnsafeMutablePointer<imgview_jpeg_source>?
    private var isCreated = false
    /// The file's mapping when the bytes are one: its pages read so far are let go between scans and rows.
    var input: MappedFile?

    init() throws(ImageDecodingError) {
        let jpeg = try JPEGLibrary.functions()
        info.initialize(to: jpeg_decompress_struct())
        // `imgview_jpeg_create` fills the error manager, libjpeg's table included.
        guard withUnsafePointer(to: jpeg, { imgview_jpeg_create(info, errors, $0) }) == 0 else {
            throw .corrupt(.jpeg, detail: "libjpeg could not start: \(CText.string(&errors.pointee.message))")
        }
        isCreated = true
    }

    deinit {
        if isCreated { imgview_jpeg_destroy(info) }
        info.deallocate()
        errors.deallocate()
        stream?.deallocate()
    }

    /// Runs `body` with a decompressor reading all of `bytes`.
    static func with<T>(_ bytes: Data, _ body: (JPEGSession) throws(ImageDecodingError) -> T) throws(ImageDecodingError) -> T {
        let result: Result<T, ImageDecodingError> = bytes.withUnsafeBytes { buffer in
            do throws(ImageDecodingError) {
                let session = try JPEGSession()
                try session.read(buffer)
                return .success(try body(session))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads from `buffer`, which must stay valid while the session is used (inside `with`).
    private func read(_ buffer: UnsafeRawBufferPointer) throws(ImageDecodingError) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { throw .truncated(.jpeg) }
        guard imgview_jpeg_mem_src(info, base.assumingMemoryBound(to: UInt8.self), UInt(buffer.count)) == 0 else {
            throw .corrupt(.jpeg, detail: CText.string(&errors.pointee.message))
        }
    }

    // MARK: Bytes still arriving

    /// Reads bytes handed over with `feed` as they arrive; calls suspend when they run out.
    func readIncrementally() {
        let source = UnsafeMutablePointer<imgview_jpeg_source>.allocate(capacity: 1)
        source.initialize(to: imgview_jpeg_source())
        imgview_jpeg_source_install(info, source)
        stream = source
    }

    /// Hands over every byte received so far; valid only until the next call that changes them.
    func feed(_ buffer: UnsafeRawBufferPointer) {
        guard let stream, let base = buffer.baseAddress else { return }
        imgview_jpeg_source_update(stream, base.assumingMemoryBound(to: UInt8.self), buffer.count)
    }

    /// The frame header, or nil while it has not arrived (reading incrementally).
    func readHeaderIfArrived() throws(ImageDecodingError) -> Frame? {
        let status = imgview_jpeg_read_header(info)
        if status == JPEG_SUSPENDED { return nil }
        guard status == JPEG_HEADER_OK else { throw failure() }
        return try frame()
    }

    // MARK: Whole buffers

    /// The first warning libjpeg gave (a premature end, corrupt data), if any.
    var warning: String? {
        errors.pointee.warnings > 0 ? CText.string(&errors.pointee.warning) : nil
    }

    /// Reads the markers up to the first scan.
    func readHeader() throws(ImageDecodingError) -> Frame {
        let status = imgview_jpeg_read_header(info)
        guard status == JPEG_HEADER_OK else {
            // With no frame header there is nothing to show: a truncation this early is fatal.
            if status >= 0 || Self.saysDataEnded(warning ?? CText.string(&errors.pointee.message)) { throw .truncated(.jpeg) }
            throw .corrupt(.jpeg, detail: CText.string(&errors.pointee.message))
        }
        return try frame()
    }

    private func frame() throws(ImageDecodingError) -> Frame {
        guard info.pointee.image_width > 0, info.pointee.image_height > 0 else { throw .corrupt(.jpeg, detail: "zero width or height") }
        let isCMYK = info.pointee.jpeg_color_space == JCS_CMYK || info.pointee.jpeg_color_space == JCS_YCCK
        return Frame(
            width: Int(info.pointee.image_width), height: Int(info.pointee.image_height), isCMYK: isCMYK,
            hasAdobeMarker: info.pointee.saw_Adobe_marker != 0, isProgressive: info.pointee.progressive_mode != 0)
    }

    /// What libjpeg holds for a progressive file until its last scan, read after the header:
    /// every component's DCT coefficients, 2 bytes each, 64 a block, in whole MCUs (0 for a
    /// sequential file, decoded a row of MCUs at a time).
    /// Has libjpeg keep a progressive file's coefficients in a temporary file beyond `resident`
    /// bytes of them (`jpegOpenBackingStore`); false, changing nothing, when no temporary file
    /// can be made. Called before decoding starts.
    func spillCoefficients(keeping resident: Int) -> Bool {
        let probe = imgview_jpeg_temporary_file()
        guard probe >= 0 else { return false }
        close(probe)
        info.pointee.mem.pointee.max_memory_to_use = resident
        return true
    }

    var coefficientBytes: Int {
        guard info.pointee.progressive_mode != 0, let components = info.pointee.comp_info else { return 0 }
        var blocks = 0
        for index in 0..<Int(info.pointee.num_components) {
            let component = components[index]
            let horizontal = max(1, Int(component.h_samp_factor))
            let vertical = max(1, Int(component.v_samp_factor))
            let wide = (Int(component.width_in_blocks) + horizontal - 1) / horizontal * horizontal
            let high = (Int(component.height_in_blocks) + vertical - 1) / vertical * vertical
            blocks += wide * high
        }
        return blocks * 64 * 2
    }

    /// Decodes every row at `eighths`/8 of the stored size, as RGBA (as ink when `cmyk`).
    ///
    /// With `skippingLowestBits`, a progressive file is read only until all that is left to come
    /// refines the lowest bit of luma's AC coefficients, which at 1/4 of the size or less changes
    /// a pixel by a level or two and can be a third of the decoding (DECISIONS.md, "Progressive
    /// JPEG previews without the last refinement").
    func decodeRows(
        scaleInEighths eighths: Int, cmyk: Bool, skippingLowestBits: Bool = false, cancellation: CancellationFlag
    ) throws(ImageDecodingError) -> PixelBuffer {
        let buffered = skippingLowestBits && info.pointee.progressive_mode != 0
        configure(scaleInEighths: eighths, cmyk: cmyk, bufferedImage: buffered)
        guard imgview_jpeg_start_decompress(info) == 1 else { throw failure() }
        let stoppedEarly = buffered ? try startOutputBeforeLowestBits(cancellation: cancellation) : false
        var output = try makeOutput()
        var failed = false
        switch try readRows(into: &output, cancellation: cancellation) {
        case .done: break
        case .suspended, .failed: failed = true
        }
        // Rows that decoded before a fatal error are still worth showing, as a truncated file's are.
        if failed {
            guard info.pointee.output_scanline > 0 else { throw failure() }
            errors.pointee.warnings += 1
            if errors.pointee.warnings == 1 { errors.pointee.warning = errors.pointee.message }
        } else if !stoppedEarly {
            // Finishing a decode that stopped early would read the rest of the file first.
            if buffered { _ = imgview_jpeg_finish_output(info) }
            _ = imgview_jpeg_finish_decompress(info)
        }
        return pixels(output)
    }

    /// Reads a progressive file's scans up to the first one that could only refine luma's lowest
    /// AC bits (or to its end), then starts an output pass of the coefficients read; true if it stopped early.
    private func startOutputBeforeLowestBits(cancellation: CancellationFlag) throws(ImageDecodingError) -> Bool {
        var stoppedEarly = false
        // libjpeg counts a scan in `coef_bits` as soon as its header is read: whether the scans
        // up to one leave only luma's lowest bits is known at its start, and acted on at the next.
        var restIsLowestLumaBits = false
        reading: while true {
            if cancellation.isCancelled { throw .cancelled }
            input?.releaseResidentPages()
            switch try consumeInput() {
            case JPEG_REACHED_EOI, JPEG_SUSPENDED:
                break reading
            case JPEG_REACHED_SOS:
                if restIsLowestLumaBits {
                    stoppedEarly = true
                    break reading
                }
                restIsLowestLumaBits = onlyLowestLumaBitsMissing
            default:
                continue
            }
        }
        // Every coefficient has arrived, so libjpeg's smoothing, which guesses missing ones, has
        // nothing to add (a file that ended early keeps it, as a decode of every scan would);
        // and the scan just begun is not in the coefficients (an output pass that included it
        // would read it first).
        if stoppedEarly {
            info.pointee.do_block_smoothing = 0
            // A file cut inside the scans left out is still reported, as a decode of every scan would.
            imgview_jpeg_warn_unless_rest_ends(info)
        }
        guard try startOutput(scan: stoppedEarly ? inputScanNumber - 1 : inputScanNumber) else { throw .truncated(.jpeg) }
        return stoppedEarly
    }

    // MARK: Steps

    /// Sets the scale and output for the decode to come.
    func configure(scaleInEighths eighths: Int, cmyk: Bool, bufferedImage: Bool) {
        info.pointee.scale_num = UInt32(eighths)
        info.pointee.scale_denom = 8
        info.pointee.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA
        // What TurboJPEG's FASTDCT and FASTUPSAMPLE flags set: a preview cannot tell the difference.
        info.pointee.dct_method = JDCT_IFAST
        info.pointee.do_fancy_upsampling = 0
        info.pointee.buffered_image = bufferedImage ? 1 : 0
    }

    /// Starts decompressing; false when it suspended for want of bytes.
    func start() throws(ImageDecodingError) -> Bool {
        switch imgview_jpeg_start_decompress(info) {
        case 1: return true
        case 0: return false
        default: throw failure()
        }
    }

    /// A zeroed RGBA (or CMYK) buffer of the output size.
    func makeOutput() throws(ImageDecodingError) -> [UInt8] {
        let (width, height) = (Int(info.pointee.output_width), Int(info.pointee.output_height))
        guard width > 0, height > 0, info.pointee.output_components == 4 else {
            throw .corrupt(.jpeg, detail: "unexpected output of \(info.pointee.output_components) components")
        }
        return [UInt8](repeating: 0, count: width * height * 4)
    }

    var outputWidth: Int { Int(info.pointee.output_width) }
    var outputHeight: Int { Int(info.pointee.output_height) }
    /// The next row an output pass will produce.
    var outputScanline: Int { Int(info.pointee.output_scanline) }
    /// The scan the input has reached (progressive files).
    var inputScanNumber: Int { Int(info.pointee.input_scan_number) }
    /// Whether libjpeg has read the file to its end (EOI, or the one it supplies for a cut file).
    var hasReadToTheEnd: Bool { errors.pointee.jpeg.jpeg_input_complete(info) != 0 }
    /// Whether the scans up to the one being read hold every coefficient but the lowest bit of
    /// some of luma's AC ones (progressive YCbCr or greyscale files).
    var onlyLowestLumaBitsMissing: Bool { imgview_jpeg_only_lowest_luma_bits_missing(info) != 0 }

    enum RowsOutcome {
        case done
        case suspended
        case failed
    }

    /// Reads rows into `output` from the current one on, until the last, a suspension or an error.
    func readRows(into output: inout [UInt8], cancellation: CancellationFlag) throws(ImageDecodingError) -> RowsOutcome {
        let (width, height) = (outputWidth, outputHeight)
        let rowLength = width * 4
        var outcome = RowsOutcome.done
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
                if first % 64 < batch { input?.releaseResidentPages() }
                let count = min(batch, height - first)
                for index in 0..<count { rows[index] = base + (first + index) * rowLength }
                let read = rows.withUnsafeMutableBufferPointer { pointers in
                    imgview_jpeg_read_scanlines(info, pointers.baseAddress, UInt32(count))
                }
                if read < 0 {
                    outcome = .failed
                    return
                }
                if read == 0 {
                    outcome = .suspended
                    return
                }
            }
        }
        if cancelled { throw .cancelled }
        return outcome
    }

    /// Takes in what has arrived of a progressive file: `JPEG_SUSPENDED`, `JPEG_REACHED_SOS`,
    /// `JPEG_REACHED_EOI`, … as libjpeg says.
    func consumeInput() throws(ImageDecodingError) -> Int32 {
        let status = imgview_jpeg_consume_input(info)
        guard status >= 0 else { throw failure() }
        return status
    }

    /// Starts an output pass showing the coefficients up to `scan`; false if it suspended.
    func startOutput(scan: Int) throws(ImageDecodingError) -> Bool {
        let status = imgview_jpeg_start_output(info, Int32(scan))
        guard status >= 0 else { throw failure() }
        return status == 1
    }

    func finishOutput() throws(ImageDecodingError) -> Bool {
        let status = imgview_jpeg_finish_output(info)
        guard status >= 0 else { throw failure() }
        return status == 1
    }

    /// `output` as pixels (ink still, for a CMYK file).
    func pixels(_ output: [UInt8]) -> PixelBuffer {
        PixelBuffer(width: outputWidth, height: outputHeight, bytes: output)
    }

    private func failure() -> ImageDecodingError {
        let detail = CText.string(&errors.pointee.message)
        return Self.saysDataEnded(detail) ? .truncated(.jpeg) : .corrupt(.jpeg, detail: detail)
    }

    /// Whether a libjpeg message says the data ran out.
    private static func saysDataEnded(_ message: String) -> Bool {
        message.contains("end of") || message.contains("Premature") || message.contains("insufficient")
    }
}
