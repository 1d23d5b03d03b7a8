import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the browser is in the animation it shows: which frame is on screen, and when the next
/// one is due, for a clock's time.
///
/// The presenter owns one and asks it after every change of state; it runs only while the
/// animation can be seen (not paused, no panel over it), so a stopped animation keeps its place
/// and asks for no wake-up.
struct AnimationPlayback {
    /// The image the playback belongs to; a new preview of the same image (a resize, the other
    /// mode) keeps its place.
    private var url: URL?
    private var timeline: AnimationTimeline?
    /// The clock's time at which the animation would have started, while it runs.
    private var origin: Duration = .zero
    /// How far in it stopped, while it does not run.
    private var stoppedAt: Duration? = .zero

    /// The frame to show and the clock time the next one is due (nil: none is, so nothing need wake).
    struct Step: Equatable {
        var frame: Int
        var wake: Duration?
    }

    /// Follows what is shown: `animation` of the image at `url` (nil for a still or nothing),
    /// running or not, at the clock's time `now`.
    mutating func follow(url: URL?, animation: RenderedAnimation?, isRunning: Bool, now: Duration) -> Step {
        guard let url, let animation else {
            self = AnimationPlayback()
            return Step(frame: 0, wake: nil)
        }
        if url != self.url {
            self = AnimationPlayback()
            self.url = url
        }
        let timeline = animation.timeline
        self.timeline = timeline
        switch (isRunning, stoppedAt) {
        case (true, let stopped?):
            origin = now - stopped
            stoppedAt = nil
        case (false, nil):
            stoppedAt = now - origin
        default:
            break
        }
        let position = timeline.position(at: stoppedAt ?? now - origin)
        return Step(frame: position.frame, wake: stoppedAt == nil ? position.nextChange.map { origin + $0 } : nil)
    }

    /// Whether the animation has played all its passes and rests on its last frame.
    func hasEnded(now: Duration) -> Bool {
        guard let timeline, let total = timeline.totalDuration else { return false }
        return (stoppedAt ?? now - origin) >= total
    }

    /// Back to the first frame (space on an animation that has ended plays it again).
    mutating func rewind(now: Duration) {
        if stoppedAt != nil { stoppedAt = .zero } else { origin = now }
    }
}
