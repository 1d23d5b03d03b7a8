/// How much of an animation one decode may take on: frames, composing work and memory.
///
/// The first frame is bounded by `DecodeRequest.maxPixelCount` alone and always kept; a later
/// frame that would pass any of these bounds ends the animation there, with a warning. So a
/// frame bomb (thousands of frames, or few frames on a huge canvas) costs bounded time and
/// memory and still shows what fits. See DECISIONS.md, "Animation limits".
public struct AnimationLimits: Sendable, Equatable {
    /// Frames kept at most.
    public var maxFrameCount: Int
    /// Frames × full-size canvas pixels composed: every frame is laid onto the whole canvas and
    /// then reduced, so this bounds the time a decode takes.
    public var maxComposedPixels: Int
    /// Frames × pixels kept at the decoded scale: bounds the memory the frames take (4 bytes each).
    public var maxKeptPixels: Int

    public static let `default` = AnimationLimits(maxFrameCount: 5_000, maxComposedPixels: 1 << 30, maxKeptPixels: 64 << 20)

    public init(maxFrameCount: Int, maxComposedPixels: Int, maxKeptPixels: Int) {
        self.maxFrameCount = maxFrameCount
        self.maxComposedPixels = maxComposedPixels
        self.maxKeptPixels = maxKeptPixels
    }
}
