/// Collects an animation's composed frames as a decoder produces them: reduces each to the
/// decoded scale, turns it upright, and stops taking frames at the request's limits.
///
/// Decoders compose each frame onto a full-size canvas (the libraries' and the formats' rules
/// differ) and hand the canvas here; the limits, the scale and the warning are the same for
/// every format. A request that does not animate gets the first frame only, without a warning;
/// a canvas too large to compose at full size (`fitsFullSizeCanvases`) gives its first frame,
/// reduced as it is decoded (`makeDownscaler`, `append(reduced:)`), and `endAnimation` says why.
public struct AnimationAssembler {
    public let header: ImageHeader
    /// The whole factor each stored canvas is reduced by.
    private(set) public var factor: Int
    /// The stored minimum size, as the factor was chosen for.
    private let minimum: (width: Int, height: Int)?
    private let canvasWidth: Int
    private let canvasHeight: Int
    private let limits: AnimationLimits
    private let animates: Bool
    private let maxDecodeBytes: Int
    private var keptPixelsPerFrame: Int
    /// Pixels composed (and decoded) so far, counted as frames are admitted.
    private var composedPixels = 0
    private(set) public var frames: [AnimationFrame] = []
    /// Why frames were left out, once a limit stopped the animation.
    private(set) public var limitReached: String?
    /// Set once a later frame was declined because the request does not animate.
    private(set) public var isFirstFrameOnly = false

    /// `canvasWidth × canvasHeight` is the stored canvas; `request.minimumSize` is upright.
    /// The kept size is twice the box where it fits in `maxDecodeBytes` beside `heldBytes`, what
    /// the library holds at full size while a frame is reduced (an AVIF's planes).
    public init(header: ImageHeader, canvasWidth: Int, canvasHeight: Int, request: DecodeRequest, beside heldBytes: Int = 0) {
        self.header = header
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
        limits = request.animationLimits
        animates = request.animates
        maxDecodeBytes = request.maxDecodeBytes
        let minimum = request.minimumSize.map { header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
        self.minimum = minimum
        let smallest = request.smallestSize.map { header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
        factor = PixelReducer.factor(
            width: canvasWidth, height: canvasHeight, covering: minimum, atLeast: smallest, beside: heldBytes,
            within: request.maxDecodeBytes)
        let reduced = PixelReducer.reducedSize(width: canvasWidth, height: canvasHeight, factor: factor)
        keptPixelsPerFrame = reduced.width * reduced.height
    }

    /// Whether one more frame fits in the limits, and if so counts its work; once one does not,
    /// `limitReached` says why. `extraPixels` is work the frame costs besides composing the
    /// canvas (a GIF frame's own rectangle, decoded in full). The first frame always fits: the
    /// canvas passed `maxPixelCount` already.
    public mutating func admitsAnotherFrame(extraPixels: Int = 0) -> Bool {
        guard limitReached == nil, !isFirstFrameOnly else { return false }
        let count = frames.count
        if count > 0, !animates {
            isFirstFrameOnly = true
            return false
        }
        let work = canvasWidth * canvasHeight + max(0, extraPixels)
        if count > 0 {
            if count >= limits.maxFrameCount {
                limitReached = "at most \(limits.maxFrameCount) frames are kept"
            } else if composedPixels + work > limits.maxComposedPixels {
                limitReached = "the frames' pixels may not pass \(limits.maxComposedPixels) in all"
            } else if (count + 1) * keptPixelsPerFrame > limits.maxKeptPixels {
                limitReached = "the frames kept may not pass \(limits.maxKeptPixels) pixels in all"
            }
        }
        if limitReached == nil { composedPixels += work }
        return limitReached == nil
    }

    /// Whether a frame after the first may be kept: the request animates and the header counts
    /// more than one. When not, a decoder need not compose onto a full-size canvas at all.
    public var mayKeepLaterFrames: Bool { animates && (header.animation?.frameCount ?? 1) > 1 }

    /// Whether `count` canvases of RGBA at full size fit in the request's `maxDecodeBytes`: the
    /// libraries compose onto one (WebP's onto two), GIF's "restore to previous" keeps another.
    public func fitsFullSizeCanvases(_ count: Int) -> Bool {
        let (pixels, overflow) = canvasWidth.multipliedReportingOverflow(by: canvasHeight)
        return !overflow && pixels <= maxDecodeBytes / 4 / max(1, count)
    }

    /// The bytes `count` full-size canvases take, for messages.
    public func fullSizeCanvasBytes(_ count: Int) -> Int {
        canvasWidth.multipliedReportingOverflow(by: canvasHeight * 4 * count).partialValue
    }

    /// The reduced size each frame is kept at.
    public var reducedSize: (width: Int, height: Int) {
        PixelReducer.reducedSize(width: canvasWidth, height: canvasHeight, factor: factor)
    }

    /// Reduces further where a first frame's rows come in any order (an interlaced GIF): its
    /// downscaler then sums every kept pixel, 20 bytes each with the frame's own, so the kept size
    /// is chosen for those to fit in `maxDecodeBytes`. Before any frame only.
    public mutating func fitSumsOfAnyOrder() {
        precondition(frames.isEmpty, "the kept size changes before the first frame only")
        factor = max(
            factor,
            PixelReducer.factor(
                width: canvasWidth, height: canvasHeight, covering: minimum, beside: 0, within: maxDecodeBytes, bytesPerPixel: 20))
        let reduced = PixelReducer.reducedSize(width: canvasWidth, height: canvasHeight, factor: factor)
        keptPixelsPerFrame = reduced.width * reduced.height
    }

    /// A downscaler from the stored canvas to the kept size, for a frame decoded row by row.
    public func makeDownscaler(order: RowDownscaler.RowOrder) -> RowDownscaler {
        RowDownscaler(sourceWidth: canvasWidth, sourceHeight: canvasHeight, factor: factor, order: order)
    }

    /// Ends the animation after the frames kept so far, because a decoder cannot go on within
    /// the limits: `reason` is said in the warning (a request that does not animate needs none).
    public mutating func endAnimation(because reason: String) {
        guard limitReached == nil, !isFirstFrameOnly else { return }
        if animates { limitReached = reason } else { isFirstFrameOnly = true }
    }

    /// Takes one frame already reduced to `reducedSize` (stored orientation), shown for `declaredDelay`.
    public mutating func append(reduced pixels: PixelBuffer, declaredDelay: Duration) {
        precondition(pixels.width == reducedSize.width && pixels.height == reducedSize.height, "a frame of another size")
        frames.append(
            AnimationFrame(pixels: header.orientation.apply(to: pixels), delay: AnimationFrame.displayDelay(declared: declaredDelay)))
    }

    /// Takes one composed canvas (RGBA, `canvasWidth × canvasHeight`, no padding; RGB when
    /// `channels` is 3) shown for `declaredDelay`.
    public mutating func append(canvas: UnsafeBufferPointer<UInt8>, channels: Int = 4, declaredDelay: Duration) {
        let reduced = PixelReducer.reduce(canvas, width: canvasWidth, height: canvasHeight, factor: factor, channels: channels)
        frames.append(
            AnimationFrame(pixels: header.orientation.apply(to: reduced), delay: AnimationFrame.displayDelay(declared: declaredDelay)))
    }

    /// Takes one composed canvas, as `append(canvas:channels:declaredDelay:)` does, but owns it:
    /// RGBA kept at full size becomes the frame as it is, without a copy of the canvas.
    public mutating func append(taking canvas: [UInt8], channels: Int = 4, declaredDelay: Duration) {
        guard factor == 1, channels == 4 else {
            canvas.withUnsafeBufferPointer { append(canvas: $0, channels: channels, declaredDelay: declaredDelay) }
            return
        }
        precondition(canvas.count == canvasWidth * canvasHeight * 4, "a canvas of another size")
        let pixels = PixelBuffer(width: canvasWidth, height: canvasHeight, bytes: canvas)
        frames.append(
            AnimationFrame(pixels: header.orientation.apply(to: pixels), delay: AnimationFrame.displayDelay(declared: declaredDelay)))
    }

    /// "showing the frame that could be decoded", or "the 3 frames": for warnings about a file that broke off.
    public var framesShown: String {
        "showing the \(frames.count == 1 ? "frame" : "\(frames.count) frames") that could be decoded"
    }

    /// The decoded image: the first frame as its pixels, the animation when more than one frame
    /// was kept. `problem` is why decoding stopped early (damage, truncation), if it did.
    /// Call only once a frame was appended.
    public func finish(loopCount: Int, totalFrames: Int?, problem: String?) -> DecodedImage {
        precondition(!frames.isEmpty, "finish without a frame")
        var notes: [String] = []
        if let problem { notes.append(problem) }
        if let limitReached {
            let count = totalFrames.map { "\(frames.count) of \($0) frames" } ?? "\(frames.count) frame\(frames.count == 1 ? "" : "s")"
            notes.append("animation cut short after \(count) (\(limitReached))")
        }
        var image = DecodedImage(header: header, pixels: frames[0].pixels, warning: notes.isEmpty ? nil : notes.joined(separator: "; "))
        if frames.count > 1 { image.animation = Animation(frames: frames, loopCount: loopCount) }
        image.isFirstFrameOnly = isFirstFrameOnly
        return image
    }
}
