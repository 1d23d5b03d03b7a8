/// The frames of an animated image, decoded: each a whole picture, ready to show in turn.
public struct Animation: Sendable, Equatable {
    /// In display order; never empty. The first is also `DecodedImage.pixels`.
    public var frames: [AnimationFrame]
    /// How many times the whole sequence plays; 0 means forever.
    public var loopCount: Int

    public init(frames: [AnimationFrame], loopCount: Int) {
        precondition(!frames.isEmpty, "an animation has at least one frame")
        self.frames = frames
        self.loopCount = loopCount
    }

    /// One pass through every frame.
    public var duration: Duration {
        frames.reduce(.zero) { $0 + $1.delay }
    }
}

/// One frame of an animation: the whole canvas as it looks while the frame shows, and for how long.
public struct AnimationFrame: Sendable, Equatable {
    /// The composed canvas (earlier frames' disposal and blending applied), upright, at the
    /// decoded scale; every frame of an animation has the same size.
    public var pixels: PixelBuffer
    /// How long the frame stays on screen, as browsers time it (see `displayDelay`).
    public var delay: Duration

    public init(pixels: PixelBuffer, delay: Duration) {
        self.pixels = pixels
        self.delay = delay
    }

    /// The delay to show a frame for, from the one its file declares.
    ///
    /// Browsers show frames that declare 10 ms or less for 100 ms: many GIFs say 0 and rely on
    /// it, and playing them as fast as possible would only burn CPU.
    public static func displayDelay(declared: Duration) -> Duration {
        declared <= .milliseconds(10) ? .milliseconds(100) : declared
    }
}
