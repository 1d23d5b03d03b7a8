internal import CJXL
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes JPEG XL with libjxl 0.7, opened on first use: stills and animations, lossy and
/// lossless, with alpha and orientation.
///
/// libjxl 0.7 gains nothing from decoding a smaller image (its DC-only path renders at full size
/// and costs more), so each frame is decoded whole into an RGBA canvas and reduced at once by
/// `AnimationAssembler`; but a JPEG that cjxl recompressed is rebuilt as that JPEG and decoded at
/// a DCT scale when the box is smaller than the image (`decodeAsJPEG`). A lossy (XYB) image is asked for in sRGB, which libjxl converts to
/// itself; an image kept in its original colour space hands that space on as `colorProfile`
/// (an ICC profile, as libjxl describes it). A cut file shows what libjxl could render of it,
/// or the frames that arrived. Its input is never closed and it is never given bytes without a
/// JPEG XL signature: libjxl 0.7 prints to stderr when misused.
public struct JXLDecoder: ImageDecoding {
    public init() {}

    /// What only libjxl tells: the orientation, and the frames of an animation with their time.
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try JXLSession.with(bytes) { session throws(ImageDecodingError) in try session.header() }
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        try request.admit(width: width, height: height)
        if request.cancellation.isCancelled { throw .cancelled }
        if let image = try Self.decodeAsJPEG(bytes, header: header, request: request) { return image }
        return try JXLSession.with(bytes) { session throws(ImageDecodingError) in try session.decode(header: header, request: request) }
    }
}

extension JXLDecoder {
    /// What decoding a `width × height` frame holds at full size: the canvas libjxl writes
    /// (`channels` bytes a pixel) and libjxl's own state beside it (measured: DECISIONS.md,
    /// "HEIC and JPEG XL counted against maxDecodeBytes").
    static func decodeBytes(width: Int, height: Int, channels: Int) -> Int {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= Int.max / 64 else { return .max }
        return pixels * (4 * channels + libraryQuarters) / 4
    }

    /// libjxl 0.7's own state while it decodes a frame into a buffer, in quarters of a byte per
    /// pixel (DECISIONS.md, "glibc's sliding mmap threshold; HEIC and JPEG XL counted against
    /// maxDecodeBytes").
    static let libraryQuarters = 11
}

/// One libjxl decoder over a buffer, alive only inside `with`.
final class JXLSession {
    let jxl: imgview_jxl
    let decoder: OpaquePointer

    static func with<T>(_ bytes: Data, _ body: (JXLSession) throws(ImageDecodingError) -> T) throws(ImageDecodingError) -> T {
        let jxl = try JXLLibrary.functions()
        let result: Result<T, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            let input = raw.bindMemory(to: UInt8.self)
            switch jxl.JxlSignatureCheck(input.baseAddress, input.count) {
            case JXL_SIG_CODESTREAM, JXL_SIG_CONTAINER: break
            case JXL_SIG_NOT_ENOUGH_BYTES: return .failure(.truncated(.jxl))
            default: return .failure(.notAnImage)
            }
            guard let decoder = jxl.JxlDecoderCreate(nil) else { return .failure(.corrupt(.jxl, detail: "libjxl could not start")) }
            defer { jxl.JxlDecoderDestroy(decoder) }
            let session = JXLSession(jxl: jxl, decoder: decoder)
            // The decoder reads from the buffer only while it lives, inside this closure.
            guard jxl.JxlDecoderSetInput(decoder, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
                return .failure(.corrupt(.jxl, detail: "libjxl refused the input"))
            }
            do throws(ImageDecodingError) {
                return .success(try body(session))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(jxl: imgview_jxl, decoder: OpaquePointer) {
        self.jxl = jxl
        self.decoder = decoder
    }

    func subscribe(_ events: [JxlDecoderStatus]) throws(ImageDecodingError) {
        let mask = events.reduce(Int32(0)) { $0 | Int32($1.rawValue) }
        guard jxl.JxlDecoderSubscribeEvents(decoder, mask) == JXL_DEC_SUCCESS else {
            throw .corrupt(.jxl, detail: "libjxl refused the events")
        }
    }

    /// The size, orientation and frames, read without decoding pixels: frame headers are walked to
    /// count the frames and their time, as far as the data goes.
    func header() throws(ImageDecodingError) -> ImageHeader {
        try subscribe([JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME])
        // Otherwise libjxl reports the size turned upright and no orientation.
        _ = jxl.JxlDecoderSetKeepOrientation(decoder, 1)
        var info = JxlBasicInfo()
        var sawInfo = false
        var frames = 0
        var duration = Duration.zero
        var declared: EmbeddedColorProfile?
        loop: while true {
            switch jxl.JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                guard jxl.JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw .corrupt(.jxl, detail: "no basic info") }
                sawInfo = true
            case JXL_DEC_COLOR_ENCODING:
                declared = declaredProfile()
                if info.have_animation == 0 { break loop }
            case JXL_DEC_FRAME:
                var frame = JxlFrameHeader()
                guard jxl.JxlDecoderGetFrameHeader(decoder, &frame) == JXL_DEC_SUCCESS else { break loop }
                frames += 1
                duration += AnimationFrame.displayDelay(declared: Self.delay(frame.duration, info))
                if frame.is_last != 0 || frames >= AnimationLimits.default.maxFrameCount * 20 { break loop }
            case JXL_DEC_NEED_MORE_INPUT, JXL_DEC_SUCCESS:
                break loop
            default:
                guard sawInfo else { throw .corrupt(.jxl, detail: "the header cannot be read") }
                break loop
            }
        }
        guard sawInfo else { throw .truncated(.jxl) }
        guard info.xsize > 0, info.ysize > 0 else { throw .corrupt(.jxl, detail: "an image of \(info.xsize)×\(info.ysize) pixels") }
        let summary =
            frames > 1 ? AnimationSummary(frameCount: frames, duration: duration, loopCount: Int(info.animation.num_loops)) : nil
        var header = ImageHeader(
            format: .jxl, storedWidth: Int(info.xsize), storedHeight: Int(info.ysize), orientation: Self.orientation(info),
            animation: summary)
        header.colorProfile = declared
        return header
    }

    /// The colour space the file was encoded from, as `info` names it: code points when libjxl
    /// can say it so, else its ICC profile; nil for sRGB. (Decoding converts from it: see `colorProfile`.)
    private func declaredProfile() -> EmbeddedColorProfile? {
        var original = JxlColorEncoding()
        if jxl.JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &original) == JXL_DEC_SUCCESS {
            let white = original.white_point
            let primaries: Int? =
                switch original.primaries {
                case JXL_PRIMARIES_SRGB: 1
                case JXL_PRIMARIES_2100: 9
                case JXL_PRIMARIES_P3: white == JXL_WHITE_POINT_DCI ? 11 : 12
                default: nil
                }
            let transfer = Int(original.transfer_function.rawValue)
            if original.color_space == JXL_COLOR_SPACE_GRAY || (primaries == 1 && transfer == 13 && white == JXL_WHITE_POINT_D65) {
                return nil
            }
            if let primaries, white == JXL_WHITE_POINT_D65 || white == JXL_WHITE_POINT_DCI, transfer != 65535 {
                return .cicp(primaries: primaries, transfer: transfer, matrix: 0, fullRange: true)
            }
        }
        var size = 0
        guard jxl.JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &size) == JXL_DEC_SUCCESS, size > 0,
            size <= 4 << 20
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard jxl.JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &bytes, size) == JXL_DEC_SUCCESS else {
            return nil
        }
        return .icc(bytes)
    }

    func decode(header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        try subscribe([JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE])
        // Orientation is applied with the other formats' (`ImageOrientation`), on the reduced frames.
        _ = jxl.JxlDecoderSetKeepOrientation(decoder, 1)
        _ = jxl.JxlDecoderSetUnpremultiplyAlpha(decoder, 1)
        var info = JxlBasicInfo()
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var assembler: AnimationAssembler?
        var canvas: [UInt8] = []
        var frameBytes = 0
        var keptWhole = false
        var profile: EmbeddedColorProfile?
        var delay = Duration.zero
        var bufferSet = false
        var problem: String?
        loop: while true {
            if request.cancellation.isCancelled { throw .cancelled }
            let status = jxl.JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard jxl.JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw .corrupt(.jxl, detail: "no basic info") }
                let (width, height) = (Int(info.xsize), Int(info.ysize))
                // The sizes the buffers take are the codestream's, checked here before any is allocated.
                guard width > 0, height > 0 else { throw .corrupt(.jxl, detail: "an image of \(width)×\(height) pixels") }
                try request.admit(width: width, height: height)
                var frameHeader = header
                (frameHeader.storedWidth, frameHeader.storedHeight, frameHeader.orientation) = (width, height, Self.orientation(info))
                assembler = AnimationAssembler(header: frameHeader, canvasWidth: width, canvasHeight: height, request: request)
                // Without alpha, RGB: a quarter less while libjxl's own state is alive, and rows are
                // widened as they are reduced.
                format.num_channels = info.alpha_bits == 0 ? 3 : 4
                let needed = JXLDecoder.decodeBytes(width: width, height: height, channels: Int(format.num_channels))
                guard request.allowsDecodeBytes(needed) else {
                    throw .tooLargeToDecode(what: "a JPEG XL", width: width, height: height, bytes: needed, limit: request.maxDecodeBytes)
                }
                // A still kept at full size becomes the image itself: its RGB is widened in place
                // once libjxl is done, into room left untouched (so not resident) until then.
                keptWhole = assembler?.factor == 1 && info.have_animation == 0
                canvas = Self.canvas(pixels: width * height, channels: Int(format.num_channels), room: keptWhole ? 4 : nil)
                frameBytes = width * height * Int(format.num_channels)
            case JXL_DEC_COLOR_ENCODING:
                profile = colorProfile(info)
            case JXL_DEC_FRAME:
                var frame = JxlFrameHeader()
                _ = jxl.JxlDecoderGetFrameHeader(decoder, &frame)
                delay = Self.delay(frame.duration, info)
                guard assembler?.admitsAnotherFrame() == true else { break loop }
                bufferSet = false
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var size = 0
                guard jxl.JxlDecoderImageOutBufferSize(decoder, &format, &size) == JXL_DEC_SUCCESS, size == frameBytes else {
                    throw .corrupt(.jxl, detail: "an unexpected frame buffer size")
                }
                let set = canvas.withUnsafeMutableBytes { jxl.JxlDecoderSetImageOutBuffer(decoder, &format, $0.baseAddress, frameBytes) }
                guard set == JXL_DEC_SUCCESS else { throw .corrupt(.jxl, detail: "libjxl refused the frame buffer") }
                bufferSet = true
            case JXL_DEC_FULL_IMAGE:
                if info.have_animation == 0 {
                    // A still is all there is: libjxl's own full-size state goes before the canvas is kept or reduced.
                    jxl.JxlDecoderReset(decoder)
                    if keptWhole, format.num_channels == 3 { Self.widenInPlace(&canvas, pixels: frameBytes / 3) }
                    let channels = keptWhole ? 4 : Int(format.num_channels)
                    assembler?.append(taking: canvas, channels: channels, declaredDelay: delay)
                    canvas = []
                    break loop
                }
                canvas.withUnsafeBufferPointer {
                    assembler?.append(canvas: $0, channels: Int(format.num_channels), declaredDelay: delay)
                }
                bufferSet = false
            case JXL_DEC_SUCCESS:
                break loop
            case JXL_DEC_NEED_MORE_INPUT:
                // All the bytes were given: the file is cut. What libjxl has of the frame under way
                // (a blurry whole, or part of it refined) is worth showing when no frame came before.
                if assembler?.frames.isEmpty == true, bufferSet, jxl.JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS {
                    jxl.JxlDecoderReset(decoder)
                    if keptWhole, format.num_channels == 3 { Self.widenInPlace(&canvas, pixels: frameBytes / 3) }
                    assembler?.append(taking: canvas, channels: keptWhole ? 4 : Int(format.num_channels), declaredDelay: delay)
                    canvas = []
                    problem = "truncated JPEG XL; showing what could be decoded"
                } else {
                    problem = "truncated JPEG XL; \(assembler?.framesShown ?? "")"
                }
                break loop
            default:
                problem = "damaged JPEG XL; \(assembler?.framesShown ?? "")"
                break loop
            }
        }
        guard let assembler, !assembler.frames.isEmpty else {
            if let problem, problem.hasPrefix("truncated") { throw .truncated(.jxl) }
            throw .corrupt(.jxl, detail: problem == nil ? "no frame in the file" : "the data cannot be decoded")
        }
        var image = assembler.finish(loopCount: Int(info.animation.num_loops), totalFrames: header.animation?.frameCount, problem: problem)
        image.colorProfile = profile
        return image
    }

    /// Lossy images are converted to sRGB by libjxl itself (nil); one kept in its original space
    /// hands that space on, unless it is sRGB already.
    private func colorProfile(_ info: JxlBasicInfo) -> EmbeddedColorProfile? {
        var original = JxlColorEncoding()
        let encoded = jxl.JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &original) == JXL_DEC_SUCCESS
        if info.uses_original_profile == 0 {
            var srgb = JxlColorEncoding()
            srgb.color_space = encoded && original.color_space == JXL_COLOR_SPACE_GRAY ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB
            srgb.white_point = JXL_WHITE_POINT_D65
            srgb.primaries = JXL_PRIMARIES_SRGB
            srgb.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
            srgb.rendering_intent = JXL_RENDERING_INTENT_PERCEPTUAL
            if jxl.JxlDecoderSetPreferredColorProfile(decoder, &srgb) == JXL_DEC_SUCCESS { return nil }
        }
        var data = JxlColorEncoding()
        if jxl.JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &data) == JXL_DEC_SUCCESS,
            data.white_point == JXL_WHITE_POINT_D65, data.transfer_function == JXL_TRANSFER_FUNCTION_SRGB,
            data.color_space == JXL_COLOR_SPACE_GRAY || data.primaries == JXL_PRIMARIES_SRGB
        {
            return nil
        }
        var size = 0
        guard jxl.JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS, size > 0,
            size <= 4 << 20
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard jxl.JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &bytes, size) == JXL_DEC_SUCCESS else {
            return nil
        }
        return .icc(bytes)
    }

    /// A zeroed canvas of `pixels × channels` bytes; with `room`, its capacity is `pixels × room`
    /// bytes, the rest written by `widenInPlace` before anything reads it.
    private static func canvas(pixels: Int, channels: Int, room: Int?) -> [UInt8] {
        guard let room, room > channels else { return [UInt8](repeating: 0, count: pixels * channels) }
        return [UInt8](unsafeUninitializedCapacity: pixels * room) { buffer, count in
            buffer.baseAddress!.initialize(repeating: 0, count: pixels * channels)
            count = pixels * room
        }
    }

    /// RGB packed at the start of `canvas` spread to RGBA over all of it, from the last pixel
    /// back: each pixel's four bytes lie at or past its three, so nothing is read once overwritten.
    private static func widenInPlace(_ canvas: inout [UInt8], pixels: Int) {
        precondition(canvas.count >= pixels * 4, "no room to widen")
        canvas.withUnsafeMutableBufferPointer { bytes in
            var pixel = pixels - 1
            while pixel >= 0 {
                let (source, target) = (pixel * 3, pixel * 4)
                let (red, green, blue) = (bytes[source], bytes[source + 1], bytes[source + 2])
                (bytes[target], bytes[target + 1], bytes[target + 2], bytes[target + 3]) = (red, green, blue, 255)
                pixel -= 1
            }
        }
    }

    /// A frame's duration in ticks as time: `tps_denominator / tps_numerator` seconds a tick, to
    /// the nanosecond below, at most an hour.
    private static func delay(_ ticks: UInt32, _ info: JxlBasicInfo) -> Duration {
        let numerator = Int(info.animation.tps_numerator)
        guard info.have_animation != 0, numerator > 0 else { return .zero }
        // A frame may last 2³² − 1 ticks of up to 1024 s: in nanoseconds, past what an Int64 holds.
        // Duration counts attoseconds in 128 bits, which hold it.
        let delay = min(.seconds(Int(ticks)) * Int(info.animation.tps_denominator) / numerator, Duration.seconds(3600))
        let (seconds, attoseconds) = delay.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// JPEG XL numbers its orientations as EXIF does.
    private static func orientation(_ info: JxlBasicInfo) -> ImageOrientation {
        ImageOrientation(rawValue: Int(info.orientation.rawValue)) ?? .up
    }
}
