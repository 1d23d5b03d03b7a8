internal import CZlib
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Plays an animated PNG: each frame's data becomes a small PNG of its own, which libspng decodes
/// like any other, and the frames are composed on a full-size canvas by APNG's blending and
/// disposal rules, then handed to `AnimationAssembler`.
///
/// libspng (like libpng) knows nothing of APNG and decodes the default image only. A frame's PNG
/// is the file's IHDR with the frame's size, its palette and transparency, one IDAT per data
/// chunk (an `fdAT`'s payload without its sequence number) and IEND; each original chunk's CRC is
/// checked before it is copied. A file that ends or breaks inside a frame keeps the frames before.
struct APNGDecoder {
    let structure: APNGStructure

    /// The animation, or nil when not even its first frame decodes (the caller shows the default image instead).
    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage? {
        let (width, height) = (structure.width, structure.height)
        var assembler = AnimationAssembler(header: header, canvasWidth: width, canvasHeight: height, request: request)
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var problem: String?
        frames: for (index, frame) in structure.frames.enumerated() {
            if request.cancellation.isCancelled { throw .cancelled }
            guard frame.isComplete else {
                problem = "truncated APNG; \(assembler.framesShown)"
                break
            }
            guard assembler.admitsAnotherFrame(extraPixels: frame.width * frame.height) else { break }
            let pixels: PixelBuffer
            switch decodeFrame(bytes, frame, request: request) {
            case .success(let decoded):
                pixels = decoded
            case .failure(let failure):
                if failure == .cancelled { throw .cancelled }
                problem = "damaged APNG (frame \(index + 1): \(failure.detail)); \(assembler.framesShown)"
                break frames
            }
            let saved = frame.disposal == .previous ? region(of: canvas, frame) : nil
            compose(pixels, frame, onto: &canvas)
            canvas.withUnsafeBufferPointer { assembler.append(canvas: $0, declaredDelay: frame.delay) }
            switch frame.disposal {
            case .none: break
            case .background: clear(frame, in: &canvas)
            case .previous: if let saved { restore(saved, frame, in: &canvas) }
            }
        }
        guard !assembler.frames.isEmpty else { return nil }
        return assembler.finish(loopCount: structure.plays, totalFrames: structure.frames.count, problem: problem)
    }

    /// Why a frame could not be decoded, in words for the warning.
    enum FrameFailure: Error, Equatable {
        case badChecksum
        case decoder(ImageDecodingError)
        case cancelled

        var detail: String {
            switch self {
            case .badChecksum: "a chunk's CRC is wrong"
            case .cancelled: "cancelled"
            case .decoder(.corrupt(_, let detail)): detail
            case .decoder(.truncated): "its data ends early"
            case .decoder(let error): error.message
            }
        }
    }

    /// The frame's pixels, its own size (not the canvas's); a frame whose rows break off is damaged.
    private func decodeFrame(_ bytes: Data, _ frame: APNGStructure.Frame, request: DecodeRequest) -> Result<PixelBuffer, FrameFailure> {
        guard let file = bytes.withUnsafeBytes({ framePNG($0, frame) }) else { return .failure(.badChecksum) }
        let png = PNGDecoder()
        let frameHeader = ImageHeader(format: .png, storedWidth: frame.width, storedHeight: frame.height, orientation: .up)
        do throws(ImageDecodingError) {
            var rows = try png.decodeRows(Data(file), header: frameHeader, request: request) { width, height, _, interlaced in
                RowDownscaler(sourceWidth: width, sourceHeight: height, covering: nil, order: interlaced ? .anyOrder : .inOrder)
            }
            if let failure = rows.failure { return .failure(.decoder(.corrupt(.png, detail: failure))) }
            return .success(rows.sink.finish())
        } catch {
            return .failure(error == .cancelled ? .cancelled : .decoder(error))
        }
    }

    /// A PNG file of the frame alone; nil when one of its chunks fails its CRC.
    private func framePNG(_ file: UnsafeRawBufferPointer, _ frame: APNGStructure.Frame) -> [UInt8]? {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr = [UInt8](file[structure.header.payload])
        ihdr.replaceSubrange(0..<8, with: Self.bigEndian(frame.width) + Self.bigEndian(frame.height))
        Self.append("IHDR", ihdr[...], to: &png)
        for chunk in structure.sharedChunks { png += file[chunk.whole] }
        for chunk in frame.data {
            guard Self.checksumHolds(file, chunk) else { return nil }
            // An fdAT's payload is its sequence number, then what an IDAT's would be.
            let skip = chunk.type == "fdAT" ? 4 : 0
            Self.append("IDAT", [UInt8](file[(chunk.payload.lowerBound + skip)..<chunk.payload.upperBound])[...], to: &png)
        }
        Self.append("IEND", [], to: &png)
        return png
    }

    private static func checksumHolds(_ file: UnsafeRawBufferPointer, _ chunk: APNGStructure.Chunk) -> Bool {
        let typeAndPayload = UnsafeRawBufferPointer(rebasing: file[(chunk.start + 4)..<chunk.payload.upperBound])
        let stored = BufferBytes(file.assumingMemoryBound(to: UInt8.self)).bigEndian32(at: chunk.payload.upperBound)
        return stored.map { crc(typeAndPayload) == UInt($0) } ?? false
    }

    private static func append(_ type: String, _ payload: ArraySlice<UInt8>, to png: inout [UInt8]) {
        let typed = Array(type.utf8) + payload
        png += bigEndian(payload.count) + typed
        let sum = typed.withUnsafeBytes { crc($0) }
        png += bigEndian(Int(sum))
    }

    private static func crc(_ bytes: UnsafeRawBufferPointer) -> UInt {
        UInt(CZlib.crc32(0, bytes.bindMemory(to: UInt8.self).baseAddress, UInt32(bytes.count)))
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }

    // MARK: Composing

    /// Lays the frame's pixels on its rectangle: replacing what is there, or over it.
    private func compose(_ pixels: PixelBuffer, _ frame: APNGStructure.Frame, onto canvas: inout [UInt8]) {
        let width = structure.width
        pixels.bytes.withUnsafeBufferPointer { source in
            canvas.withUnsafeMutableBufferPointer { target in
                for row in 0..<frame.height {
                    var from = row * frame.width * 4
                    var to = ((frame.y + row) * width + frame.x) * 4
                    for _ in 0..<frame.width {
                        let alpha = Int(source[from + 3])
                        if frame.blending == .source || alpha == 255 {
                            for channel in 0..<4 { target[to + channel] = source[from + channel] }
                        } else if alpha > 0 {
                            // Straight alpha, "over": the result's alpha, then each colour weighted by its share.
                            let under = Int(target[to + 3]) * (255 - alpha) / 255
                            let total = alpha + under
                            for channel in 0..<3 {
                                target[to + channel] = UInt8(
                                    (Int(source[from + channel]) * alpha + Int(target[to + channel]) * under) / total)
                            }
                            target[to + 3] = UInt8(total)
                        }
                        from += 4
                        to += 4
                    }
                }
            }
        }
    }

    private func region(of canvas: [UInt8], _ frame: APNGStructure.Frame) -> [UInt8] {
        var saved: [UInt8] = []
        saved.reserveCapacity(frame.width * frame.height * 4)
        for row in 0..<frame.height {
            let start = ((frame.y + row) * structure.width + frame.x) * 4
            saved += canvas[start..<start + frame.width * 4]
        }
        return saved
    }

    private func restore(_ saved: [UInt8], _ frame: APNGStructure.Frame, in canvas: inout [UInt8]) {
        for row in 0..<frame.height {
            let start = ((frame.y + row) * structure.width + frame.x) * 4
            canvas.replaceSubrange(start..<start + frame.width * 4, with: saved[(row * frame.width * 4)..<((row + 1) * frame.width * 4)])
        }
    }

    private func clear(_ frame: APNGStructure.Frame, in canvas: inout [UInt8]) {
        for row in 0..<frame.height {
            let start = ((frame.y + row) * structure.width + frame.x) * 4
            for index in start..<start + frame.width * 4 { canvas[index] = 0 }
        }
    }
}
