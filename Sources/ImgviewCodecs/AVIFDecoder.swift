import CAVIF
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes AVIF with libavif (AV1 through dav1d or libaom): stills and image sequences, 8 to
/// 12 bits, with alpha, rotation (`irot`) and mirroring (`imir`) honoured.
///
/// libavif 0.11 cannot scale, so each frame is converted to 8-bit RGBA at full size and
/// reduced at once; cancellation is checked between frames (an AV1 frame decodes in one
/// call). It has no loop count either (that came in libavif 1.0): sequences play forever.
public struct AVIFDecoder: ImageDecoding {
    public init() {}

    /// The most pixels libavif 0.11 can be asked to decode (`AVIF_DEFAULT_IMAGE_SIZE_LIMIT`).
    static let libraryPixelLimit = 16384 * 16384

    /// libavif's own parse: only it counts a sequence's frames and their durations.
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        do {
            return try AVIFSession.with(bytes, sizeLimit: Self.libraryPixelLimit) { session throws(ImageDecodingError) in
                try session.header()
            }
        } catch {
            // libavif refuses to parse a size past its own limit; the header still says what it is,
            // and `decode` refuses it with its numbers like any other image too large.
            guard case .corrupt = error, let size = probe.storedSize,
                size.width.multipliedReportingOverflow(by: size.height).partialValue > Self.libraryPixelLimit
            else { throw error }
            return ImageHeader(format: .avif, storedWidth: size.width, storedHeight: size.height, orientation: .up)
        }
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        guard width.multipliedReportingOverflow(by: height).partialValue <= request.maxPixelCount else {
            throw .tooLarge(width: width, height: height, limit: request.maxPixelCount)
        }
        if request.cancellation.isCancelled { throw .cancelled }
        // dav1d is told the limit too: the AV1 frames may be larger than the container says.
        return try AVIFSession.with(bytes, sizeLimit: min(request.maxPixelCount, Self.libraryPixelLimit)) {
            session throws(ImageDecodingError) in
            try session.decodeFrames(header: header, request: request)
        }
    }
}

/// One libavif decoder over a buffer, parsed, alive only inside `with`.
private final class AVIFSession {
    private let decoder: UnsafeMutablePointer<avifDecoder>
    private let avif: imgview_avif

    /// Whether the file ends before its boxes do: every failure is then "truncated".
    private(set) var isCut = false

    static func with<T>(
        _ bytes: Data, sizeLimit: Int, _ body: (AVIFSession) throws(ImageDecodingError) -> T
    ) throws(ImageDecodingError) -> T {
        let avif = try AVIFLibrary.functions()
        let declaredLength = declaredLength(bytes)
        // dav1d prints its own lines on C's stderr: they join the error's one line instead.
        let (result, messages) = LibraryMessages.capture { () -> Result<T, ImageDecodingError> in
            bytes.withUnsafeBytes { raw in session(avif, raw, declaredLength: declaredLength, sizeLimit: sizeLimit, body) }
        }
        if case .failure(.corrupt(let format, let detail)) = result, !messages.isEmpty {
            throw .corrupt(format, detail: "\(detail) (dav1d: \(messages.joined(separator: "; ")))")
        }
        return try result.get()
    }

    /// Makes the decoder over `raw`, parses it and runs `body` on the session.
    private static func session<T>(
        _ avif: imgview_avif, _ raw: UnsafeRawBufferPointer, declaredLength: Int?, sizeLimit: Int,
        _ body: (AVIFSession) throws(ImageDecodingError) -> T
    ) -> Result<T, ImageDecodingError> {
        guard let decoder = avif.avifDecoderCreate() else { return .failure(.corrupt(.avif, detail: "libavif could not start")) }
        defer { avif.avifDecoderDestroy(decoder) }
        // Browsers decode files that bend the specification (a missing `pixi`, say); so do we.
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        decoder.pointee.ignoreExif = 1
        decoder.pointee.ignoreXMP = 1
        decoder.pointee.maxThreads = 1
        decoder.pointee.imageSizeLimit = UInt32(clamping: max(1, sizeLimit))
        decoder.pointee.imageDimensionLimit = 0
        let session = AVIFSession(decoder: decoder, avif: avif)
        session.isCut = declaredLength != nil
        do throws(ImageDecodingError) {
            try session.check(avif.avifDecoderSetIOMemory(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count))
            if let declaredLength { decoder.pointee.io.pointee.sizeHint = UInt64(declaredLength) }
            try session.check(avif.avifDecoderParse(decoder))
            return .success(try body(session))
        } catch {
            return .failure(error)
        }
    }

    private init(decoder: UnsafeMutablePointer<avifDecoder>, avif: imgview_avif) {
        self.decoder = decoder
        self.avif = avif
    }

    /// The size, orientation and timing that parsing found, before any frame is decoded.
    func header() throws(ImageDecodingError) -> ImageHeader {
        guard let image = decoder.pointee.image, image.pointee.width > 0, image.pointee.height > 0 else {
            throw .corrupt(.avif, detail: "zero width or height")
        }
        let count = Int(decoder.pointee.imageCount)
        var animation: AnimationSummary?
        if count > 1 {
            var duration = Duration.zero
            var timing = avifImageTiming()
            for index in 0..<count where avif.avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK {
                duration += AnimationFrame.displayDelay(declared: Self.duration(seconds: timing.duration))
            }
            animation = AnimationSummary(frameCount: count, duration: duration, loopCount: 0)
        }
        return ImageHeader(
            format: .avif, storedWidth: Int(image.pointee.width), storedHeight: Int(image.pointee.height),
            orientation: Self.orientation(image.pointee), animation: animation)
    }

    /// Decodes frames in order into the assembler until the last, damage, or a limit.
    func decodeFrames(header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        var assembler = AnimationAssembler(header: header, canvasWidth: width, canvasHeight: height, request: request)
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var problem: String?
        let count = Int(decoder.pointee.imageCount)
        for _ in 0..<count {
            if request.cancellation.isCancelled { throw .cancelled }
            guard assembler.admitsAnotherFrame() else { break }
            let status = avif.avifDecoderNextImage(decoder)
            guard status == AVIF_RESULT_OK, let image = decoder.pointee.image,
                Int(image.pointee.width) == width, Int(image.pointee.height) == height
            else {
                let failure = status == AVIF_RESULT_OK ? .corrupt(.avif, detail: "a frame changes size") : self.failure(status)
                guard !assembler.frames.isEmpty else { throw failure }
                let what = if case .corrupt(_, let detail) = failure { "damaged AVIF (\(detail))" } else { "truncated AVIF" }
                problem = "\(what); \(assembler.framesShown)"
                break
            }
            var rgb = avifRGBImage()
            avif.avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.rowBytes = UInt32(width * 4)
            let converted = canvas.withUnsafeMutableBufferPointer { pixels in
                rgb.pixels = pixels.baseAddress
                return avif.avifImageYUVToRGB(image, &rgb)
            }
            try check(converted)
            let delay = Self.duration(seconds: decoder.pointee.imageTiming.duration)
            canvas.withUnsafeBufferPointer { assembler.append(canvas: $0, declaredDelay: delay) }
        }
        guard !assembler.frames.isEmpty else { throw .corrupt(.avif, detail: "no image in the file") }
        return assembler.finish(loopCount: 0, totalFrames: count, problem: problem)
    }

    private func check(_ status: avifResult) throws(ImageDecodingError) {
        guard status == AVIF_RESULT_OK else { throw failure(status) }
    }

    /// Where the file's last box says the file ends, when that is past the bytes there are.
    ///
    /// libavif refuses any sample that lies past the reader's size hint, so a sequence cut in its
    /// last frame would show none of the frames that did arrive. Told the declared size instead,
    /// it parses, and a read past the end fails as truncated data, for that frame only.
    private static func declaredLength(_ bytes: Data) -> Int? {
        let head = [UInt8](bytes.prefix(64 << 10))
        guard let last = ISOMediaHeader.boxes(in: head, 0..<head.count).last, last.declaredEnd > bytes.count else { return nil }
        return last.declaredEnd
    }

    private func failure(_ status: avifResult) -> ImageDecodingError {
        if status == AVIF_RESULT_TRUNCATED_DATA || isCut { return .truncated(.avif) }
        var detail = avif.avifResultToString(status).map { String(cString: $0) } ?? "libavif error \(status.rawValue)"
        let diagnostic = CText.string(&decoder.pointee.diag.error)
        if !diagnostic.isEmpty { detail += ": " + diagnostic }
        return .corrupt(.avif, detail: detail)
    }

    private static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .milliseconds(Int(min(seconds, 3600) * 1000))
    }

    /// `irot` (anticlockwise quarter turns) then `imir` (0 swaps top and bottom, 1 left and
    /// right), as HEIF orders them, as the EXIF orientation that does the same.
    static func orientation(_ image: avifImage) -> ImageOrientation {
        let flags = image.transformFlags
        let turns = flags & UInt32(AVIF_TRANSFORM_IROT.rawValue) != 0 ? Int(image.irot.angle & 3) : 0
        let mirror: Int? = flags & UInt32(AVIF_TRANSFORM_IMIR.rawValue) != 0 ? Int(image.imir.mode & 1) : nil
        // Rows: quarter turns 0...3; columns: no mirror, top-bottom, left-right.
        let table: [[ImageOrientation]] = [
            [.up, .downMirrored, .upMirrored],
            [.left, .leftMirrored, .rightMirrored],
            [.down, .upMirrored, .downMirrored],
            [.right, .rightMirrored, .leftMirrored],
        ]
        return table[turns][mirror.map { $0 + 1 } ?? 0]
    }
}
