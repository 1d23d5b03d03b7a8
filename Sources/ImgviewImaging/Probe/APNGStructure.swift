/// The animation an animated PNG (APNG) declares, read from its chunks without decoding pixels.
///
/// An APNG is a PNG whose `acTL` chunk (before the first `IDAT`) says how many frames it has and
/// how often they play; each frame is an `fcTL` (its rectangle, delay, disposal and blending)
/// followed by its data: the `IDAT` chunks when the first `fcTL` comes before them (the default
/// image is then frame 0), else `fdAT` chunks, which are `IDAT` payloads behind a sequence
/// number. PNG decoders that know nothing of APNG show the default image, and so does imgview
/// when the animation is broken (`problem`), as browsers do. Every length comes from the file,
/// so every read is bounds-checked. Chunk CRCs are the decoder's to check.
public struct APNGStructure: Sendable, Equatable {
    public enum Disposal: Sendable, Equatable {
        /// Leave the canvas as the frame left it.
        case none
        /// Clear the frame's rectangle to transparent once it has been shown.
        case background
        /// Put the frame's rectangle back as it was before the frame.
        case previous
    }

    public enum Blending: Sendable, Equatable {
        /// The frame's pixels replace the rectangle's, alpha included.
        case source
        /// The frame is composed over the rectangle.
        case over
    }

    /// A chunk of the file: where it starts (its length field) and where its payload lies.
    public struct Chunk: Sendable, Equatable {
        public var type: String
        public var start: Int
        public var payload: Range<Int>
        /// The whole chunk, length, type and CRC included.
        public var whole: Range<Int> { start..<payload.upperBound + 4 }
    }

    public struct Frame: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var x: Int
        public var y: Int
        /// As the file declares it; `AnimationFrame.displayDelay` makes it the shown one.
        public var delay: Duration
        public var disposal: Disposal
        public var blending: Blending
        /// The chunks holding the frame's compressed data, in order: `IDAT`s for the default image,
        /// else `fdAT`s, whose payload starts with a 4-byte sequence number.
        public var data: [Chunk]
        /// Whether the frame's data ended before the file did (another chunk came after it).
        public var isComplete: Bool
    }

    /// The canvas, from IHDR.
    public var width: Int
    public var height: Int
    /// How many frames `acTL` declares.
    public var declaredFrameCount: Int
    /// How many times the animation plays; 0 means forever.
    public var plays: Int
    /// The frames found, in order; at most `maxFrames`.
    public var frames: [Frame]
    /// IHDR, and the chunks every frame's pixels need besides it: the palette and transparency.
    public var header: Chunk
    public var sharedChunks: [Chunk]
    /// Where the file states its colour space (`iCCP`, `sRGB`, `gAMA`, `cHRM`), for colour management.
    public var colorChunks: [Chunk]
    /// Why the animation cannot be played as declared, when it cannot; the default image is shown instead.
    public var problem: String?

    /// Frames read at most: far past what `AnimationLimits` keeps, so a frame count stays true enough for `info`.
    public static let maxFrames = 100_000

    /// Whether there is an animation to play: more than one frame, nothing broken.
    public var isAnimated: Bool { problem == nil && frames.count > 1 }

    /// Frames, duration and plays for `info`, nil unless `isAnimated`.
    public var summary: AnimationSummary? {
        guard isAnimated else { return nil }
        let duration = frames.reduce(Duration.zero) { $0 + AnimationFrame.displayDelay(declared: $1.delay) }
        return AnimationSummary(frameCount: frames.count, duration: duration, loopCount: plays)
    }

    /// The animation in a PNG file (whole, or its first bytes), nil for a PNG without `acTL` (a still) or not a PNG at all.
    public static func read(_ bytes: UnsafeRawBufferPointer) -> APNGStructure? {
        var reader = ChunkReader(bytes: bytes)
        guard bytes.count >= 8, bytes.prefix(8).elementsEqual(pngSignature), let ihdr = reader.next(), ihdr.type == "IHDR",
            ihdr.payload.count == 13
        else { return nil }
        var structure = APNGStructure(
            width: reader.big32(ihdr.payload.lowerBound), height: reader.big32(ihdr.payload.lowerBound + 4), declaredFrameCount: 0,
            plays: 0, frames: [], header: ihdr, sharedChunks: [], colorChunks: [], problem: nil)
        var sawControl = false
        var sawImageData = false
        var nextSequence = 0
        /// The frame whose `fcTL` came last, still taking data chunks.
        var open: Frame?
        func fail(_ reason: String) {
            if structure.problem == nil { structure.problem = reason }
        }
        func close(complete: Bool) {
            guard var frame = open else { return }
            frame.isComplete = complete
            if frame.data.isEmpty, complete { fail("frame \(structure.frames.count + 1) has no image data") }
            if structure.frames.count < maxFrames { structure.frames.append(frame) }
            open = nil
        }
        while let chunk = reader.next() {
            let at = chunk.payload.lowerBound
            switch chunk.type {
            case "acTL" where !sawImageData && !sawControl && chunk.payload.count == 8:
                sawControl = true
                structure.declaredFrameCount = reader.big32(at)
                structure.plays = reader.big32(at + 4)
                if structure.declaredFrameCount == 0 { fail("acTL declares no frames") }
            case "fcTL" where sawControl:
                close(complete: true)
                guard chunk.payload.count == 26 else {
                    fail("an fcTL chunk of \(chunk.payload.count) bytes")
                    continue
                }
                if reader.big32(at) != nextSequence { fail("frames out of sequence") }
                nextSequence += 1
                let (numerator, denominator) = (reader.big16(at + 20), reader.big16(at + 22))
                var frame = Frame(
                    width: reader.big32(at + 4), height: reader.big32(at + 8), x: reader.big32(at + 12), y: reader.big32(at + 16),
                    delay: .nanoseconds(Int64(numerator) * 1_000_000_000 / Int64(denominator == 0 ? 100 : denominator)),
                    disposal: [.none, .background, .previous][min(2, Int(reader.bytes[at + 24]))],
                    blending: reader.bytes[at + 25] == 0 ? .source : .over, data: [], isComplete: false)
                if reader.bytes[at + 24] > 2 || reader.bytes[at + 25] > 1 { fail("unknown disposal or blending") }
                if frame.width == 0 || frame.height == 0 || frame.x + frame.width > structure.width
                    || frame.y + frame.height > structure.height
                {
                    fail("a frame outside the canvas")
                }
                if structure.frames.isEmpty {
                    // The first frame covers the canvas, and has no earlier canvas to go back to.
                    if frame.x != 0 || frame.y != 0 || frame.width != structure.width || frame.height != structure.height {
                        if !sawImageData { fail("the first frame is not the whole canvas") }
                    }
                    if frame.disposal == .previous { frame.disposal = .background }
                }
                open = frame
            case "IDAT":
                // acTL comes before the image data or not at all: a still needs no walk over its megabytes.
                guard sawControl else { return nil }
                sawImageData = true
                // IDAT is a frame's data only when its fcTL came first: the default image is then frame 0.
                if open != nil, structure.frames.isEmpty { open?.data.append(chunk) }
            case "fdAT" where sawControl:
                guard chunk.payload.count > 4 else {
                    fail("an empty fdAT chunk")
                    continue
                }
                if reader.big32(at) != nextSequence { fail("frames out of sequence") }
                nextSequence += 1
                if open == nil || open?.data.first?.type == "IDAT" { fail("image data outside a frame") } else { open?.data.append(chunk) }
            case "PLTE", "tRNS":
                if !sawImageData { structure.sharedChunks.append(chunk) }
            case "iCCP", "sRGB", "gAMA", "cHRM":
                if !sawImageData { structure.colorChunks.append(chunk) }
            case "IEND":
                close(complete: true)
                return sawControl ? structure : nil
            default:
                break
            }
        }
        // The data ended before IEND: the last frame's data may be cut.
        close(complete: false)
        return sawControl ? structure : nil
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Chunks one after another from the signature's end; stops at the first one not there whole.
    private struct ChunkReader {
        let bytes: UnsafeRawBufferPointer
        var position = 8

        /// The same bytes, for the fields the chunks hold.
        private var fields: BufferBytes { BufferBytes(bytes.assumingMemoryBound(to: UInt8.self)) }

        mutating func next() -> Chunk? {
            guard position + 12 <= bytes.count else { return nil }
            let length = big32(position)
            // The format caps a chunk at 2^31 - 1 bytes.
            guard length <= Int(Int32.max), position + 12 + length <= bytes.count else { return nil }
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            let chunk = Chunk(type: type, start: position, payload: (position + 8)..<(position + 8 + length))
            position += 12 + length
            return chunk
        }

        /// The 32-bit field at `offset`, inside a chunk `next()` found whole (0 past the end).
        func big32(_ offset: Int) -> Int { fields.bigEndian32(at: offset) ?? 0 }

        /// The 16-bit field at `offset`, inside a chunk `next()` found whole (0 past the end).
        func big16(_ offset: Int) -> Int { fields.bigEndian16(at: offset) ?? 0 }
    }
}
