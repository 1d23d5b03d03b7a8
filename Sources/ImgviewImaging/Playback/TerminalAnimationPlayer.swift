import Foundation
import ImgviewSupport

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

    /// Plays to the end, handing `write` what to send to the terminal. Throws `CancellationError`
    /// when the task is cancelled, after the terminal is restored.
    public func play(write: (Data) -> Void) async throws {
        let timeline = AnimationTimeline(delays: animation.frames.map(\.delay), loopCount: loops ?? animation.loopCount)
        let rows = animation.frames.map { $0.graphics?.layout.rows ?? $0.grid.rows }.max() ?? 0
        let encoded = animation.frames.map(Self.bytes(of:))
        write(Data(Self.prologue(rows: rows)))
        defer { write(Data(Self.epilogue(rows: rows))) }
        let origin = clock.now
        var shown: Int?
        while true {
            let elapsed = clock.now - origin
            let position = timeline.position(at: duration.map { min(elapsed, $0) } ?? elapsed)
            if position.frame != shown {
                write(Data(EscapeSequence.restoreCursor) + encoded[position.frame])
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
        return Data(AnsiPrinter().bytes(for: frame.grid))
    }

    /// Hides the cursor, reserves the image's rows below it (so drawing never scrolls) and saves
    /// the cursor where the image starts.
    static func prologue(rows: Int) -> [UInt8] {
        EscapeSequence.resetMode(.cursorVisible) + Array(repeating: UInt8(ascii: "\n"), count: rows) + EscapeSequence.cursorUp(rows)
            + EscapeSequence.saveCursor
    }

    /// Leaves the cursor on the line below the image, shown, with attributes reset.
    static func epilogue(rows: Int) -> [UInt8] {
        SGR.reset + EscapeSequence.restoreCursor + (rows > 0 ? EscapeSequence.cursorDown(rows) : []) + [UInt8(ascii: "\r")]
            + EscapeSequence.setMode(.cursorVisible)
    }
}
