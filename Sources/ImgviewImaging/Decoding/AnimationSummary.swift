/// What an animated image's header says about its frames, read without decoding pixels.
public struct AnimationSummary: Sendable, Equatable {
    /// Frames in the file (more than one, or the image is a still).
    public var frameCount: Int
    /// One pass through every frame, with each delay as it will be shown (`AnimationFrame.displayDelay`).
    public var duration: Duration
    /// How many times the sequence plays; 0 means forever.
    public var loopCount: Int

    public init(frameCount: Int, duration: Duration, loopCount: Int) {
        self.frameCount = frameCount
        self.duration = duration
        self.loopCount = loopCount
    }
}
