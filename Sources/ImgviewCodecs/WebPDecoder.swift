internal import CWebP
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes WebP with libwebp: stills (lossy, lossless, with alpha) through the incremental
/// decoder, scaled by libwebp while decoding; animations through its demuxer and animation
/// decoder, which composes every frame onto the canvas.
///
/// A still fed in 64 KB steps stops between them once cancelled, and one that ends early
/// keeps the rows that arrived, the rest transparent, with a warning. A truncated animation
/// keeps its complete frames: the demuxer finds where the last one ends, and the animation
/// decoder (which takes only whole files) is given the bytes up to there.
///
/// libwebp holds some images whole whatever the scale: a lossless bitstream's pixels (4 bytes
/// each), a lossy one's alpha plane (2), the animation decoder's two canvases and a frame (12). Past the
/// request's `maxDecodeBytes` a still is refused, and an animation shows its first frame,
/// decoded alone at the reduced scale.
public struct WebPDecoder: ImageDecoding {
    public init() {}

    /// libwebp is shown this many more bytes at a time, with a cancellation check between.
    static let feedStep = 64 << 10

    /// The probe read the RIFF chunks already: the canvas, ANIM's loop count and each ANMF's delay.
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        try request.admit(width: width, height: height)
        if request.cancellation.isCancelled { throw .cancelled }
        let webp = try WebPLibrary.functions()
        let demux = try WebPDemuxLibrary.functions()
        let animated = try withDemuxer(bytes, demux) { demuxer, _ throws(ImageDecodingError) in Self.isAnimated(demuxer, demux) }
        if animated { return try decodeAnimation(bytes, header: header, request: request, webp, demux) }
        return try decodeStill(bytes, header: header, request: request, webp)
    }

    // MARK: Stills

    private func decodeStill(
        _ bytes: Data, header: ImageHeader, request: DecodeRequest, _ webp: imgview_webp
    ) throws(ImageDecodingError) -> DecodedImage {
        let heldBytes = try Self.checkWholeImageMemory(bytes, request: request, webp)
        let factor = PixelReducer.factor(
            width: header.storedWidth, height: header.storedHeight, covering: request.minimumSize, atLeast: request.smallestSize,
            beside: heldBytes,
            within: request.maxDecodeBytes)
        let (width, height) = PixelReducer.reducedSize(width: header.storedWidth, height: header.storedHeight, factor: factor)
        // Zero is transparent: rows that never arrive show the background.
        var output = [UInt8](repeating: 0, count: width * height * 4)
        let outcome: Result<(rows: Int, status: VP8StatusCode), ImageDecodingError> = bytes.withUnsafeBytes { raw in
            output.withUnsafeMutableBufferPointer { pixels in
                var config = WebPDecoderConfig()
                guard webp.WebPInitDecoderConfig(&config) != 0 else { return .failure(.corrupt(.webp, detail: "libwebp version mismatch")) }
                if factor > 1 {
                    // libwebp's own rescaler averages while decoding: the full-size image never exists.
                    config.options.use_scaling = 1
                    config.options.scaled_width = Int32(width)
                    config.options.scaled_height = Int32(height)
                }
                config.output.colorspace = MODE_RGBA
                config.output.is_external_memory = 1
                config.output.u.RGBA.rgba = pixels.baseAddress
                config.output.u.RGBA.stride = Int32(width * 4)
                config.output.u.RGBA.size = pixels.count
                guard let decoder = webp.WebPIDecode(nil, 0, &config) else {
                    return .failure(.corrupt(.webp, detail: "libwebp cannot decode this image"))
                }
                defer { webp.WebPIDelete(decoder) }
                let base = raw.bindMemory(to: UInt8.self).baseAddress!
                var offset = 0
                var status = VP8_STATUS_SUSPENDED
                while offset < raw.count, status == VP8_STATUS_SUSPENDED {
                    if request.cancellation.isCancelled { return .failure(.cancelled) }
                    offset = min(offset + Self.feedStep, raw.count)
                    // The bytes so far, read where they are: `WebPIAppend` would copy the whole file into a
                    // buffer of libwebp's, grown by doubling (twice the file at worst).
                    status = webp.WebPIUpdate(decoder, base, offset)
                }
                var lastRow: Int32 = 0
                _ = webp.WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil)
                return .success((Int(lastRow), status))
            }
        }
        let (rows, status) = try outcome.get()
        var warning: String?
        if status != VP8_STATUS_OK {
            guard rows > 0 else {
                throw status == VP8_STATUS_SUSPENDED ? .truncated(.webp) : .corrupt(.webp, detail: Self.statusText(status))
            }
            let what = status == VP8_STATUS_SUSPENDED ? "truncated WebP" : "damaged WebP (\(Self.statusText(status)))"
            warning = "\(what); showing the rows that could be decoded"
        }
        return DecodedImage(header: header, pixels: PixelBuffer(width: width, height: height, bytes: output), warning: warning)
    }

    /// What libwebp holds at full size to decode the bitstream `bytes` (a file, or one frame's
    /// chunks), and the bitstream it reads in place beside them (a lossless photo's is a quarter
    /// to a half of its pixels' bytes): refused when past the request's `maxDecodeBytes`; what it
    /// holds when not.
    @discardableResult
    private static func checkWholeImageMemory(
        _ bytes: Data, request: DecodeRequest, _ webp: imgview_webp
    ) throws(ImageDecodingError) -> Int {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBytes { raw in
            webp.WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        guard status == VP8_STATUS_OK else { return 0 }  // the decode says what is wrong
        let (width, height) = (Int(features.width), Int(features.height))
        let (bytesPerPixel, what) =
            switch (features.format, features.has_alpha != 0) {
            case (2, _): (4, "a lossless WebP")
            case (_, true): (2, "a WebP with alpha")
            default: (0, "")
            }
        guard bytesPerPixel > 0 else { return 0 }
        let needed = width.multipliedReportingOverflow(by: height * bytesPerPixel).partialValue.addingReportingOverflow(bytes.count)
            .partialValue
        guard request.allowsDecodeBytes(needed) else {
            throw .tooLargeToDecode(what: what, width: width, height: height, bytes: needed, limit: request.maxDecodeBytes)
        }
        return needed
    }

    // MARK: Animations

    private func decodeAnimation(
        _ bytes: Data, header: ImageHeader, request: DecodeRequest, _ webp: imgview_webp, _ demux: imgview_webp_demux
    ) throws(ImageDecodingError) -> DecodedImage {
        var assembler = AnimationAssembler(
            header: header, canvasWidth: header.storedWidth, canvasHeight: header.storedHeight, request: request)
        // WebPAnimDecoder composes onto a canvas and keeps the one before, and a frame as large
        // as the canvas is decoded whole beside them: three full-size canvases.
        guard assembler.fitsFullSizeCanvases(3) else {
            return try decodeFirstFrame(bytes, header: header, request: request, into: &assembler, webp, demux)
        }
        let (whole, cut) = try withDemuxer(bytes, demux) { demuxer, state throws(ImageDecodingError) in
            state == WEBP_DEMUX_DONE ? (bytes, false) : (try Self.completeFramesOnly(bytes, demuxer, demux), true)
        }
        let result: Result<DecodedImage, ImageDecodingError> = whole.withUnsafeBytes { raw in
            var data = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            var options = WebPAnimDecoderOptions()
            guard demux.WebPAnimDecoderOptionsInit(&options) != 0 else {
                return .failure(.corrupt(.webp, detail: "libwebp version mismatch"))
            }
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            guard let decoder = demux.WebPAnimDecoderNew(&data, &options) else {
                return .failure(cut ? .truncated(.webp) : .corrupt(.webp, detail: "the animation cannot be read"))
            }
            defer { demux.WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard demux.WebPAnimDecoderGetInfo(decoder, &info) != 0, Int(info.canvas_width) == header.storedWidth,
                Int(info.canvas_height) == header.storedHeight
            else { return .failure(.corrupt(.webp, detail: "the animation's canvas does not match its header")) }

            var problem: String?
            var previousTimestamp: Int32 = 0
            while demux.WebPAnimDecoderHasMoreFrames(decoder) != 0, assembler.admitsAnotherFrame() {
                if request.cancellation.isCancelled { return .failure(.cancelled) }
                var canvas: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard demux.WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                    guard !assembler.frames.isEmpty else { return .failure(.corrupt(.webp, detail: "the first frame cannot be decoded")) }
                    problem = "damaged WebP animation; \(assembler.framesShown)"
                    break
                }
                let pixels = UnsafeBufferPointer(start: canvas, count: header.storedWidth * header.storedHeight * 4)
                // libwebp sums the frames' durations in an int of milliseconds, which wraps past 2³¹ − 1
                // (129 frames of the most one says): each is 24 bits, so the wrapping difference is its own.
                assembler.append(canvas: pixels, declaredDelay: .milliseconds(Int(timestamp &- previousTimestamp)))
                previousTimestamp = timestamp
            }
            if cut, problem == nil {
                problem = "truncated WebP animation; \(assembler.framesShown)"
            }
            return .success(
                assembler.finish(loopCount: Int(info.loop_count), totalFrames: header.animation?.frameCount, problem: problem))
        }
        return try result.get()
    }

    /// The first frame alone, decoded by libwebp at the reduced scale and placed on a transparent
    /// canvas of the kept size: for a canvas too large to compose at full size. On an empty
    /// canvas the first frame needs no blending. Later frames are left out, and the warning says why.
    private func decodeFirstFrame(
        _ bytes: Data, header: ImageHeader, request: DecodeRequest, into assembler: inout AnimationAssembler, _ webp: imgview_webp,
        _ demux: imgview_webp_demux
    ) throws(ImageDecodingError) -> DecodedImage {
        let frame = try withDemuxer(bytes, demux) { demuxer, _ throws(ImageDecodingError) -> (Data, Int, Int, Int) in
            var iterator = WebPIterator()
            guard demux.WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { throw .truncated(.webp) }
            defer { demux.WebPDemuxReleaseIterator(&iterator) }
            guard iterator.complete != 0, let start = iterator.fragment.bytes else { throw .truncated(.webp) }
            let chunks = Data(bytes: start, count: iterator.fragment.size)
            return (chunks, Int(iterator.x_offset), Int(iterator.y_offset), Int(iterator.duration))
        }
        let (chunks, left, top, duration) = frame
        try Self.checkWholeImageMemory(chunks, request: request, webp)
        var features = WebPBitstreamFeatures()
        let status = chunks.withUnsafeBytes { raw in webp.WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        guard status == VP8_STATUS_OK, features.width > 0, features.height > 0 else {
            throw .corrupt(.webp, detail: "the first frame cannot be decoded")
        }
        let factor = assembler.factor
        let canvas = assembler.reducedSize
        let scaled = PixelReducer.reducedSize(width: Int(features.width), height: Int(features.height), factor: factor)
        var pixels = [UInt8](repeating: 0, count: scaled.width * scaled.height * 4)
        let decoded = chunks.withUnsafeBytes { raw in
            pixels.withUnsafeMutableBufferPointer { pixels in
                var config = WebPDecoderConfig()
                guard webp.WebPInitDecoderConfig(&config) != 0 else { return VP8_STATUS_INVALID_PARAM }
                if factor > 1 {
                    config.options.use_scaling = 1
                    config.options.scaled_width = Int32(scaled.width)
                    config.options.scaled_height = Int32(scaled.height)
                }
                config.output.colorspace = MODE_RGBA
                config.output.is_external_memory = 1
                config.output.u.RGBA.rgba = pixels.baseAddress
                config.output.u.RGBA.stride = Int32(scaled.width * 4)
                config.output.u.RGBA.size = pixels.count
                return webp.WebPDecode(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &config)
            }
        }
        guard decoded == VP8_STATUS_OK else { throw .corrupt(.webp, detail: "the first frame: \(Self.statusText(decoded))") }
        // The frame at its place on the kept canvas, clipped to it.
        var composed = [UInt8](repeating: 0, count: canvas.width * canvas.height * 4)
        let (x0, y0) = (left / factor, top / factor)
        let columns = max(0, min(scaled.width, canvas.width - x0))
        for row in 0..<min(scaled.height, max(0, canvas.height - y0)) where columns > 0 {
            let source = row * scaled.width * 4
            let target = ((y0 + row) * canvas.width + x0) * 4
            composed.replaceSubrange(target..<target + columns * 4, with: pixels[source..<source + columns * 4])
        }
        _ = assembler.admitsAnotherFrame()
        assembler.append(
            reduced: PixelBuffer(width: canvas.width, height: canvas.height, bytes: composed), declaredDelay: .milliseconds(duration))
        if (header.animation?.frameCount ?? 1) > 1 {
            let megabytes = (assembler.fullSizeCanvasBytes(3) + 500_000) / 1_000_000
            assembler.endAnimation(
                because: "composing frames on a \(header.storedWidth)×\(header.storedHeight) canvas needs \(megabytes) MB")
        }
        return assembler.finish(loopCount: header.animation?.loopCount ?? 0, totalFrames: header.animation?.frameCount, problem: nil)
    }

    /// The file up to the end of its last complete frame, with the RIFF size made to match, so
    /// that the animation decoder (which refuses partial files) reads the frames that arrived.
    private static func completeFramesOnly(
        _ bytes: Data, _ demuxer: OpaquePointer, _ demux: imgview_webp_demux
    ) throws(ImageDecodingError) -> Data {
        var end = 0
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            var iterator = WebPIterator()
            guard demux.WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { return }
            repeat {
                guard iterator.complete != 0, let start = iterator.fragment.bytes else { break }
                end = UnsafeRawPointer(start) - base + iterator.fragment.size
            } while demux.WebPDemuxNextFrame(&iterator) != 0
            demux.WebPDemuxReleaseIterator(&iterator)
        }
        guard end > 12, end <= bytes.count else { throw .truncated(.webp) }
        end += end % 2  // chunks are padded to an even length
        var prefix = Data(bytes.prefix(min(end, bytes.count)))
        if prefix.count % 2 == 1 { prefix.append(0) }
        let riffSize = UInt32(prefix.count - 8)
        prefix.replaceSubrange(4..<8, with: withUnsafeBytes(of: riffSize.littleEndian) { Data($0) })
        return prefix
    }

    // MARK: Demuxing

    /// Runs `body` with a demuxer over `bytes` (which may end early) and how far it parsed.
    private func withDemuxer<T>(
        _ bytes: Data, _ demux: imgview_webp_demux, _ body: (OpaquePointer, WebPDemuxState) throws(ImageDecodingError) -> T
    ) throws(ImageDecodingError) -> T {
        let result: Result<T, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            var data = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
            var state = WEBP_DEMUX_PARSING_HEADER
            guard let demuxer = demux.WebPDemuxPartial(&data, &state) else {
                return .failure(state == WEBP_DEMUX_PARSE_ERROR ? .corrupt(.webp, detail: "malformed container") : .truncated(.webp))
            }
            defer { demux.WebPDemuxDelete(demuxer) }
            guard state != WEBP_DEMUX_PARSING_HEADER else { return .failure(.truncated(.webp)) }
            do throws(ImageDecodingError) {
                return .success(try body(demuxer, state))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func isAnimated(_ demuxer: OpaquePointer, _ demux: imgview_webp_demux) -> Bool {
        demux.WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & UInt32(ANIMATION_FLAG.rawValue) != 0
    }

    private static func statusText(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED, VP8_STATUS_NOT_ENOUGH_DATA: "not enough data"
        default: "status \(status.rawValue)"
        }
    }
}
