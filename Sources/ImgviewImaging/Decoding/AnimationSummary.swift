import ImgviewSupport

/// What an animated image's header says about its frames, read without decoding pixels.
public struct AnimationSummary: Sendable, Equatable, Codable {
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

    private enum CodingKeys: String, CodingKey {
        case frameCount, milliseconds, loopCount
    }

    // The duration as whole milliseconds: what cache entries hold, and what a reader of them expects.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        frameCount = try container.decode(Int.self, forKey: .frameCount)
        duration = .milliseconds(try container.decode(Int.self, forKey: .milliseconds))
        loopCount = try container.decode(Int.self, forKey: .loopCount)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(frameCount, forKey: .frameCount)
        try container.encode(duration.wholeMilliseconds, forKey: .milliseconds)
        try container.encode(loopCount, forKey: .loopCount)
    }
}
