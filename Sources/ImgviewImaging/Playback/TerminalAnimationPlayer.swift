#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Plays a rendered animation where a command's output goes, on a terminal that scrolls (`show`):
/// each frame drawn over the last in the same place, by the frames' own timing.
///
/// It reserves the image's rows first (so drawing never scrolls), saves the cursor there, and for
/// each frame returns to it and writes the frame: the same for text and for pixels. However it
/// ends — the passes played, `duration` over, or the task cancelled by Ctrl-C — it leaves the
/// cursor on the line below the image, shown again, with attributes reset.
public struct TerminalAnimationPlayer: Sendable {
    public var animation: RenderedAnimation
    /// How many passes to play; nil plays the animation's own count (0: forever).
    public var loops: Int?
    /// When to stop however far it got; nil: when the passes end.
    public var duration: Duration?
    public var clock: any PlaybackClock

    public init(
        animation: RenderedAnimation, loops: Int? = nil, duration: Duration? = nil, clock: any PlaybackClock = SystemPlaybackClock()
    ) {
        self.animation = animation
        self.loops = loops
        self.duration = duration
        self.clock = clock
    }

    /// Escape sequences, named.
    enum Control {
        static let hideCursor = "\u{1B}[?25l"
        static let showCursor = "\u{1B}[?25h"
        static let saveCursor = "\u{1B}7"
        static let restoreCursor = "\u{1B}8"
        static let reset = "\u{1B}[0m"
    }

    /// Plays to the end, handing `write` what to send to the terminal. Throws `CancellationError`
    /// when the task is cancelled, after the terminal is restored.
    public func play(write: (Data) -> Void) async throws {
        let timeline = AnimationTimeline(delays: animation.frames.map(\.delay), loopCount: loops ?? animation.loopCount)
        let rows = animation.frames.map { $0.graphics?.layout.rows ?? $0.grid.rows }.max() ?? 0
        let encoded = animation.frames.map(Self.bytes(of:))
        write(Data((Control.hideCursor + String(repeating: "\n", count: rows) + "\u{1B}[\(rows)A" + Control.saveCursor).utf8))
        defer {
            write(Data((Control.reset + Control.restoreCursor + (rows > 0 ? "\u{1B}[\(rows)B" : "") + "\r" + Control.showCursor).utf8))
        }
        let origin = clock.now
        var shown: Int?
        while true {
            let elapsed = clock.now - origin
            let position = timeline.position(at: duration.map { min(elapsed, $0) } ?? elapsed)
            if position.frame != shown {
                write(Data(Control.restoreCursor.utf8) + encoded[position.frame])
                shown = position.frame
            }
            if let duration, elapsed >= duration { return }
            guard var next = position.nextChange else { return }
            if let duration { next = min(next, duration) }
            try await clock.sleep(until: origin + next)
        }
    }

    /// A frame as the terminal takes it: its pixels' escape sequence, or its cells as text.
    package static func bytes(of frame: RenderedFrame) -> Data {
        if let graphics = frame.graphics { return Data(graphics.bytes) }
        return Data(AnsiPrinter().text(for: frame.grid).utf8)
    }
}
