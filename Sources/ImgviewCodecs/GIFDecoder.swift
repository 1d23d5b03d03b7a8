internal import CGIF
import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes GIF with giflib, record by record, composing every frame onto the canvas as
/// browsers do: transparency, the three disposal methods, interlaced rows, frames clipped to
/// the canvas.
///
/// Frames are decoded one at a time into one full-size canvas and handed to an
/// `AnimationAssembler`, which reduces each to the requested scale and stops at the
/// animation limits. A still, a request that does not animate, and a screen too large to
/// compose at full size within the request's `maxDecodeBytes` take the first frame only, its
/// rows reduced as they are decoded. A file
/// that ends early keeps the frames (and rows) that arrived, with a warning; one that ends
/// before any row is an error.
public struct GIFDecoder: ImageDecoding {
    public init() {}

    /// The probe walked every block already: the canvas, the frames, their delays and the loop count.
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        try request.admit(width: width, height: height)
        if request.cancellation.isCancelled { throw .cancelled }
        let loopCount = header.animation?.loopCount ?? 1
        let result: Result<DecodedImage, ImageDecodingError> = bytes.withUnsafeBytes { raw in
            do throws(ImageDecodingError) {
                let session = try GIFSession(raw.bindMemory(to: UInt8.self), input: request.mappedInput)
                defer { session.close() }
                var assembler = AnimationAssembler(header: header, canvasWidth: width, canvasHeight: height, request: request)
                let problem = try session.composeFrames(into: &assembler, cancellation: request.cancellation)
                return .success(
                    assembler.finish(loopCount: loopCount, totalFrames: header.animation?.frameCount ?? 1, problem: problem))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// One giflib decoder reading from a buffer, with the canvas its frames are composed onto.
private final class GIFSession {
    private let source: UnsafeBufferPointer<UInt8>
    private var offset = 0
    /// The file's mapping when the bytes are one: its pages read so far are let go every 4 MB.
    private let input: MappedFile?
    private var file: UnsafeMutablePointer<GifFileType>?
    /// giflib, opened on first use.
    private let gif: imgview_gif

    init(_ source: UnsafeBufferPointer<UInt8>, input: MappedFile? = nil) throws(ImageDecodingError) {
        self.source = source
        self.input = input
        gif = try GIFLibrary.functions()
        var error: Int32 = 0
        // giflib pulls bytes through this function; `UserData` leads back to this session.
        let read: InputFunc = { file, buffer, wanted in
            guard let file, let buffer, let user = file.pointee.UserData else { return 0 }
            let session = Unmanaged<GIFSession>.fromOpaque(user).takeUnretainedValue()
            let count = max(0, min(Int(wanted), session.source.count - session.offset))
            if count > 0 { buffer.update(from: session.source.baseAddress! + session.offset, count: count) }
            if let input = session.input, (session.offset + count) >> 22 != session.offset >> 22 { input.releaseResidentPages() }
            session.offset += count
            return Int32(count)
        }
        file = gif.DGifOpen(Unmanaged.passUnretained(self).toOpaque(), read, &error)
        guard file != nil else { throw failure(error, framesSoFar: 0) }
    }

    func close() {
        var error: Int32 = 0
        if let file { _ = gif.DGifCloseFile(file, &error) }
        file = nil
    }

    /// Decodes frames until the trailer, the end of the data, damage or the assembler's limits;
    /// returns what stopped it early (nil when the file ended properly or a limit did).
    func composeFrames(into assembler: inout AnimationAssembler, cancellation: CancellationFlag) throws(ImageDecodingError) -> String? {
        guard let file else { return nil }
        // The canvas, and the copy "restore to previous" keeps: for a still, or into a pipe, neither.
        guard assembler.mayKeepLaterFrames, assembler.fitsFullSizeCanvases(2) else {
            return try firstFrameOnly(file, into: &assembler, cancellation: cancellation)
        }
        let (width, height) = (assembler.header.storedWidth, assembler.header.storedHeight)
        // Zero is transparent: what no frame covers shows the background.
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var saved: [UInt8]?  // the canvas before a "restore to previous" frame
        var control = Self.noControl
        var previous: (disposal: Int32, rect: FrameRect)?

        while true {
            if cancellation.isCancelled { throw .cancelled }
            var type = UNDEFINED_RECORD_TYPE
            guard gif.DGifGetRecordType(file, &type) == GIF_OK else { return try stop(file, assembler) }
            switch type {
            case EXTENSION_RECORD_TYPE:
                guard readExtension(file, control: &control) else { return try stop(file, assembler) }
            case IMAGE_DESC_RECORD_TYPE:
                guard gif.DGifGetImageDesc(file) == GIF_OK else { return try stop(file, assembler) }
                let descriptor = file.pointee.Image
                let rect = FrameRect(
                    left: Int(descriptor.Left), top: Int(descriptor.Top), width: Int(descriptor.Width), height: Int(descriptor.Height))
                // Every row of the frame is decoded, inside the canvas or not: that is work too.
                guard assembler.admitsAnotherFrame(extraPixels: rect.width * rect.height) else { return nil }
                if let previous {
                    switch previous.disposal {
                    case DISPOSE_BACKGROUND: clear(previous.rect, in: &canvas, width: width, height: height)
                    case DISPOSE_PREVIOUS: if let saved { canvas = saved }
                    default: break
                    }
                }
                let disposal = control.DisposalMode
                saved = disposal == DISPOSE_PREVIOUS ? canvas : nil
                let colors = descriptor.ColorMap ?? file.pointee.SColorMap
                let complete = try canvas.withUnsafeMutableBufferPointer { canvas throws(ImageDecodingError) in
                    try draw(
                        file, rect, interlaced: descriptor.Interlace, colors: colors, transparent: Int(control.TransparentColor),
                        width: width, height: height, cancellation: cancellation
                    ) { y, colors in
                        // Only the opaque pixels cover the canvas.
                        var pixel = (y * width + rect.left) * 4
                        for index in stride(from: 0, to: colors.count, by: 4) {
                            if colors[index + 3] != 0 {
                                canvas[pixel] = colors[index]
                                canvas[pixel + 1] = colors[index + 1]
                                canvas[pixel + 2] = colors[index + 2]
                                canvas[pixel + 3] = 255
                            }
                            pixel += 4
                        }
                    }
                }
                if !complete.whole, complete.rows == 0, assembler.frames.isEmpty { throw failure(file, framesSoFar: 0) }
                canvas.withUnsafeBufferPointer { assembler.append(canvas: $0, declaredDelay: .milliseconds(10 * Int(control.DelayTime))) }
                if !complete.whole { return describe(file.pointee.Error, assembler) }
                previous = (disposal, rect)
                control = Self.noControl  // a graphic control block applies to the next image only
            case TERMINATE_RECORD_TYPE:
                return nil
            default:
                return try stop(file, assembler)
            }
        }
    }

    /// What a frame without a graphic control block gets: no disposal, no delay, no transparency.
    private static let noControl = GraphicsControlBlock(
        DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 0, TransparentColor: NO_TRANSPARENT_COLOR)

    /// A frame's rectangle on the canvas, as its descriptor gives it (it may reach past the canvas).
    struct FrameRect {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
    }

    /// Reads one extension block to its end, keeping a graphic control extension's timing and
    /// disposal in `control`; false when giflib could not read it.
    private func readExtension(_ file: UnsafeMutablePointer<GifFileType>, control: inout GraphicsControlBlock) -> Bool {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard gif.DGifGetExtension(file, &code, &block) == GIF_OK else { return false }
        if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4 {
            _ = gif.DGifExtensionToGCB(Int(block[0]), block + 1, &control)
        }
        while block != nil {
            guard gif.DGifGetExtensionNext(file, &block) == GIF_OK else { return false }
        }
        return true
    }

    /// The first frame alone, its rows reduced as giflib decodes them: for a still, a request
    /// that does not animate, or a screen too large to compose at full size. On an empty screen the first frame needs no composing: its
    /// opaque pixels over transparency. Later frames are left out, and the warning says why.
    private func firstFrameOnly(
        _ file: UnsafeMutablePointer<GifFileType>, into assembler: inout AnimationAssembler, cancellation: CancellationFlag
    ) throws(ImageDecodingError) -> String? {
        let (width, height) = (assembler.header.storedWidth, assembler.header.storedHeight)
        var control = Self.noControl
        while true {
            if cancellation.isCancelled { throw .cancelled }
            var type = UNDEFINED_RECORD_TYPE
            guard gif.DGifGetRecordType(file, &type) == GIF_OK else { return try stop(file, assembler) }
            switch type {
            case EXTENSION_RECORD_TYPE:
                guard readExtension(file, control: &control) else { return try stop(file, assembler) }
            case IMAGE_DESC_RECORD_TYPE:
                guard gif.DGifGetImageDesc(file) == GIF_OK else { return try stop(file, assembler) }
                let descriptor = file.pointee.Image
                let rect = FrameRect(
                    left: Int(descriptor.Left), top: Int(descriptor.Top), width: Int(descriptor.Width), height: Int(descriptor.Height))
                if descriptor.Interlace { assembler.fitSumsOfAnyOrder() }
                _ = assembler.admitsAnotherFrame(extraPixels: rect.width * rect.height)
                var downscaler = assembler.makeDownscaler(order: descriptor.Interlace ? .anyOrder : .inOrder)
                // One screen row: zero (transparent) but where the frame's opaque pixels are.
                var line = [UInt8](repeating: 0, count: width * 4)
                let complete = try draw(
                    file, rect, interlaced: descriptor.Interlace, colors: descriptor.ColorMap ?? file.pointee.SColorMap,
                    transparent: Int(control.TransparentColor), width: width, height: height, cancellation: cancellation
                ) { y, colors in
                    line.withUnsafeMutableBufferPointer { line in
                        let start = rect.left * 4
                        for index in 0..<colors.count { line[start + index] = colors[index] }
                        downscaler.add(row: y, pixels: UnsafeBufferPointer(line))
                    }
                }
                if !complete.whole, complete.rows == 0 { throw failure(file, framesSoFar: 0) }
                assembler.append(reduced: downscaler.finish(), declaredDelay: .milliseconds(10 * Int(control.DelayTime)))
                if !complete.whole { return describe(file.pointee.Error, assembler) }
                if (assembler.header.animation?.frameCount ?? 1) > 1 {
                    let megabytes = (assembler.fullSizeCanvasBytes(2) + 500_000) / 1_000_000
                    assembler.endAnimation(because: "composing frames on a \(width)×\(height) screen needs \(megabytes) MB")
                }
                return nil
            case TERMINATE_RECORD_TYPE:
                throw .corrupt(.gif, detail: "no image in the file")
            default:
                return try stop(file, assembler)
            }
        }
    }

    /// Decodes the frame's rows and hands each row's part on the canvas to `place` as RGBA
    /// (alpha 0 where the frame is transparent), with its canvas row; how many rows arrived,
    /// and whether all did.
    private func draw(
        _ file: UnsafeMutablePointer<GifFileType>, _ rect: FrameRect, interlaced: Bool, colors: UnsafeMutablePointer<ColorMapObject>?,
        transparent: Int, width: Int, height: Int, cancellation: CancellationFlag,
        place: (_ y: Int, _ colors: UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) -> (rows: Int, whole: Bool) {
        guard rect.width > 0, rect.height > 0 else { return (0, true) }
        // An index past the table is drawn black, as Firefox draws it; a frame with no table at all is all black.
        var palette = [UInt8](repeating: 0, count: 256 * 4)
        for index in 0..<256 { palette[index * 4 + 3] = 255 }
        if let colors, let entries = colors.pointee.Colors {
            for index in 0..<min(256, Int(colors.pointee.ColorCount)) {
                palette[index * 4] = entries[index].Red
                palette[index * 4 + 1] = entries[index].Green
                palette[index * 4 + 2] = entries[index].Blue
            }
        }
        if (0..<256).contains(transparent) { palette[transparent * 4 + 3] = 0 }

        var line = [GifPixelType](repeating: 0, count: rect.width)
        let visible = max(0, min(rect.width, width - rect.left))
        var rgba = [UInt8](repeating: 0, count: visible * 4)
        let order = Self.rowOrder(height: rect.height, interlaced: interlaced)
        var rows = 0
        for (position, row) in order.enumerated() {
            if position % 64 == 63, cancellation.isCancelled { throw .cancelled }
            guard gif.DGifGetLine(file, &line, Int32(rect.width)) == GIF_OK else { return (rows, false) }
            rows += 1
            let y = rect.top + row
            guard y < height, visible > 0 else { continue }
            rgba.withUnsafeMutableBufferPointer { rgba in
                palette.withUnsafeBufferPointer { palette in
                    for x in 0..<visible {
                        let color = Int(line[x]) * 4
                        rgba[x * 4] = palette[color]
                        rgba[x * 4 + 1] = palette[color + 1]
                        rgba[x * 4 + 2] = palette[color + 2]
                        rgba[x * 4 + 3] = palette[color + 3]
                    }
                }
                place(y, UnsafeBufferPointer(rgba))
            }
        }
        return (rows, true)
    }

    /// The canvas rows in the order the file stores them: interlaced GIFs send every 8th row,
    /// then the 4th rows between, then the 2nd, then the rest.
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }

    /// "Restore to background": browsers clear the frame's rectangle to transparent.
    /// The rectangle may lie partly or wholly off the canvas; only what is on it is cleared.
    private func clear(_ rect: FrameRect, in canvas: inout [UInt8], width: Int, height: Int) {
        let right = min(width, rect.left + rect.width)
        let bottom = min(height, rect.top + rect.height)
        guard rect.left < right, rect.top < bottom else { return }
        for y in rect.top..<bottom {
            let start = (y * width + rect.left) * 4
            canvas.withUnsafeMutableBufferPointer { canvas in
                for index in start..<start + (right - rect.left) * 4 { canvas[index] = 0 }
            }
        }
    }

    /// The data ended or broke between frames: an error before the first frame, a warning after.
    private func stop(_ file: UnsafeMutablePointer<GifFileType>, _ assembler: AnimationAssembler) throws(ImageDecodingError) -> String? {
        guard !assembler.frames.isEmpty else { throw failure(file, framesSoFar: 0) }
        return describe(file.pointee.Error, assembler)
    }

    private func failure(_ file: UnsafeMutablePointer<GifFileType>, framesSoFar: Int) -> ImageDecodingError {
        failure(file.pointee.Error, framesSoFar: framesSoFar)
    }

    private func failure(_ code: Int32, framesSoFar: Int) -> ImageDecodingError {
        code == D_GIF_ERR_READ_FAILED ? .truncated(.gif) : .corrupt(.gif, detail: errorText(code))
    }

    private func describe(_ code: Int32, _ assembler: AnimationAssembler) -> String {
        let what = code == D_GIF_ERR_READ_FAILED ? "truncated GIF" : "damaged GIF (\(errorText(code)))"
        return "\(what); \(assembler.framesShown)"
    }

    private func errorText(_ code: Int32) -> String {
        gif.GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
    }
}
