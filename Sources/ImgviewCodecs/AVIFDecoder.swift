internal import CAVIF
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes AVIF with libavif (AV1 through dav1d or libaom): stills and image sequences, 8 to
/// 12 bits, with alpha, rotation (`irot`) and mirroring (`imir`) honoured.
///
/// libavif 0.11 cannot scale, so each frame is converted to 8-bit RGBA a band of rows at a time
/// and reduced as it goes; cancellation is checked between frames (an AV1 frame decodes in one
/// call). dav1d holds a frame's planes whole: an image whose planes would pass the request's
/// `maxDecodeBytes` is refused before decoding. libavif has no loop count either (that came in
/// 1.0): sequences play forever.
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
            // The probe's `ispe` takes 32 bits a side: a product past what an Int holds is past the limit too.
            guard case .corrupt = error, let size = probe.storedSize,
                case (let pixels, let overflow) = size.width.multipliedReportingOverflow(by: size.height),
                overflow || pixels > Self.libraryPixelLimit
            else { throw error }
            return ImageHeader(format: .avif, storedWidth: size.width, storedHeight: size.height, orientation: .up)
        }
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        try request.admit(width: width, height: height)
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
        let planeBytes = try checkPlaneMemory(width: width, height: height, request: request)
        var assembler = AnimationAssembler(
            header: header, canvasWidth: width, canvasHeight: height, request: request, beside: planeBytes)
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
            var downscaler = assembler.makeDownscaler(order: .inOrder)
            try convert(image.pointee) { y, row in downscaler.add(row: y, pixels: row) }
            let delay = Self.duration(seconds: decoder.pointee.imageTiming.duration)
            assembler.append(reduced: downscaler.finish(), declaredDelay: delay)
        }
        guard !assembler.frames.isEmpty else { throw .corrupt(.avif, detail: "no image in the file") }
        return assembler.finish(loopCount: 0, totalFrames: count, problem: problem)
    }

    /// Refuses an image whose planes, as dav1d holds them, would pass `maxDecodeBytes`: read
    /// from the parse (size, depth, chroma subsampling, alpha), before any frame is decoded; the
    /// bytes they take when not.
    private func checkPlaneMemory(width: Int, height: Int, request: DecodeRequest) throws(ImageDecodingError) -> Int {
        guard let image = decoder.pointee.image else { return 0 }
        // Quarters of a sample per pixel: luma, then both chroma planes as subsampled, then alpha.
        let chroma =
            switch image.pointee.yuvFormat {
            case AVIF_PIXEL_FORMAT_YUV444: 8
            case AVIF_PIXEL_FORMAT_YUV422: 4
            case AVIF_PIXEL_FORMAT_YUV420: 2
            default: 0
            }
        let quarters = (4 + chroma + (decoder.pointee.alphaPresent != 0 ? 4 : 0)) * (image.pointee.depth > 8 ? 2 : 1)
        // dav1d holds about half as much again as the planes: padding and its own buffers
        // (DECISIONS.md, "Decoders' memory follows the output").
        let needed = width.multipliedReportingOverflow(by: height * quarters * 3).partialValue / 8
        guard request.allowsDecodeBytes(needed) else {
            throw .tooLargeToDecode(what: "an AVIF", width: width, height: height, bytes: needed, limit: request.maxDecodeBytes)
        }
        return needed
    }

    /// Rows converted to 8-bit RGBA at a time.
    static let bandRows = 64

    /// Converts `image` to 8-bit RGBA a band of rows at a time, handing each row to `row` (`y`
    /// from the top, stored orientation). Each band is converted from a view of the planes that
    /// reaches two rows past it on either side, so chroma upsampling reads the same neighbours
    /// it would for the whole image.
    private func convert(_ image: avifImage, row: (_ y: Int, _ pixels: UnsafeBufferPointer<UInt8>) -> Void) throws(ImageDecodingError) {
        let (width, height) = (Int(image.width), Int(image.height))
        let margin = 2
        var band = [UInt8](repeating: 0, count: width * 4 * (Self.bandRows + 2 * margin))
        let chromaShift = image.yuvFormat == AVIF_PIXEL_FORMAT_YUV420 ? 1 : 0
        var top = 0
        while top < height {
            let bottom = min(height, top + Self.bandRows)
            // `top` is a multiple of the band, so `first` is even: a 4:2:0 view starts on a chroma row.
            let first = max(0, top - margin)
            let last = min(height, bottom + margin)
            var view = image
            view.height = UInt32(last - first)
            view.yuvPlanes.0 = image.yuvPlanes.0.map { $0 + first * Int(image.yuvRowBytes.0) }
            view.yuvPlanes.1 = image.yuvPlanes.1.map { $0 + (first >> chromaShift) * Int(image.yuvRowBytes.1) }
            view.yuvPlanes.2 = image.yuvPlanes.2.map { $0 + (first >> chromaShift) * Int(image.yuvRowBytes.2) }
            view.alphaPlane = image.alphaPlane.map { $0 + first * Int(image.alphaRowBytes) }
            let status = band.withUnsafeMutableBufferPointer { pixels in
                var rgb = avifRGBImage()
                avif.avifRGBImageSetDefaults(&rgb, &view)
                rgb.format = AVIF_RGB_FORMAT_RGBA
                rgb.depth = 8
                rgb.rowBytes = UInt32(width * 4)
                rgb.pixels = pixels.baseAddress
                return avif.avifImageYUVToRGB(&view, &rgb)
            }
            try check(status)
            band.withUnsafeBufferPointer { pixels in
                for y in top..<bottom {
                    row(y, UnsafeBufferPointer(rebasing: pixels[(y - first) * width * 4..<(y - first + 1) * width * 4]))
                }
            }
            top = bottom
        }
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
