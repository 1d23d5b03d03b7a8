import ImgviewSupport

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
/// cursor on the line below the image, shown again, with attributes reset. Stopped by Ctrl-Z, it
/// does the same before the process stops, and on `fg` reserves the rows again below whatever
/// the shell printed meanwhile and goes on there.
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

    /// The rows the image takes: its tallest frame.
    public var rows: Int {
        animation.frames.map { $0.graphics?.layout.rows ?? $0.grid.rows }.max() ?? 0
    }

    /// What leaves the terminal as the shell expects it should playback end abruptly: the cursor
    /// below the image, shown, attributes reset.
    public var terminalRestoration: [UInt8] { Self.epilogue(rows: rows) }

    /// Plays to the end, handing `write` what to send to the terminal. Throws `CancellationError`
    /// when the task is cancelled, after the terminal is restored. With `jobControl`, a suspension
    /// gives the terminal back meanwhile.
    public func play(write: @escaping @Sendable (Data) -> Void, jobControl: (any JobControl)? = nil) async throws {
        let timeline = AnimationTimeline(delays: animation.frames.map(\.delay), loopCount: loops ?? animation.loopCount)
        let screen = Screen(frames: animation.frames.map(Self.bytes(of:)), rows: rows, write: write)
        screen.begin()
        defer { screen.end() }
        guard let jobControl else { return try await run(timeline, on: screen) }
        try await jobControl.observingSuspension(suspending: screen.suspend, resumed: screen.resume) {
            try await run(timeline, on: screen)
        }
    }

    private func run(_ timeline: AnimationTimeline, on screen: Screen) async throws {
        let origin = clock.now
        var shown: Int?
        while true {
            let elapsed = clock.now - origin
            let position = timeline.position(at: duration.map { min(elapsed, $0) } ?? elapsed)
            if position.frame != shown {
                screen.show(position.frame)
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
        if let graphics = frame.graphics { return Data(graphics.bytes + (graphics.placeholders?.block(column: 0) ?? [])) }
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

    /// The terminal as playback leaves it, written from the playing task and from job control's
    /// thread, one at a time: whether the terminal is the player's now, and the frame on it.
    private final class Screen: Sendable {
        private struct State {
            var shown: Int?
            var suspended = false
            var finished = false
        }

        private let frames: [Data]
        private let rows: Int
        private let write: @Sendable (Data) -> Void
        private let state = Locked(State())

        init(frames: [Data], rows: Int, write: @escaping @Sendable (Data) -> Void) {
            self.frames = frames
            self.rows = rows
            self.write = write
        }

        func begin() {
            state.withLock { _ in write(Data(TerminalAnimationPlayer.prologue(rows: rows))) }
        }

        /// Draws frame `index`, or only remembers it while the terminal is the shell's.
        func show(_ index: Int) {
            state.withLock { state in
                state.shown = index
                if !state.suspended { write(Data(EscapeSequence.restoreCursor) + frames[index]) }
            }
        }

        @Sendable func suspend() {
            state.withLock { state in
                guard !state.finished, !state.suspended else { return }
                state.suspended = true
                write(Data(TerminalAnimationPlayer.epilogue(rows: rows)))
            }
        }

        @Sendable func resume() {
            state.withLock { state in
                guard !state.finished, state.suspended else { return }
                state.suspended = false
                write(Data(TerminalAnimationPlayer.prologue(rows: rows)))
                if let shown = state.shown { write(Data(EscapeSequence.restoreCursor) + frames[shown]) }
            }
        }

        func end() {
            state.withLock { state in
                guard !state.finished else { return }
                state.finished = true
                if !state.suspended { write(Data(TerminalAnimationPlayer.epilogue(rows: rows))) }
            }
        }
    }
}
