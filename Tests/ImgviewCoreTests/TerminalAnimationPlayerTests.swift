import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging
@testable import ImgviewSupport

/// `show`'s player driven by a clock the test moves: which frames reach the terminal, when, and
/// what is left behind however playback ends.
@Suite("TerminalAnimationPlayer")
struct TerminalAnimationPlayerTests {
    /// Three one-row frames, "A", "B" and "C", shown 100, 200 and 300 ms.
    static let animation = RenderedAnimation(
        frames: zip(["A", "B", "C"], [100, 200, 300]).map { text, milliseconds in
            RenderedFrame(
                grid: CellGrid(columns: 1, rows: 1, cells: [Cell(character: Character(text))]), delay: .milliseconds(milliseconds))
        },
        loopCount: 0)

    /// What the player wrote so far.
    final class Terminal: Sendable {
        private let written = Locked(Data())
        func write(_ data: Data) { written.withLock { $0.append(data) } }
        var text: String { String(decoding: written.withLock { $0 }, as: UTF8.self) }
        /// The frames drawn, in order.
        var frames: [String] { text.components(separatedBy: "\u{1B}8").dropFirst().map { String($0.prefix(1)) } }
    }

    /// An APNG plays up to 2³² − 1 times, each pass as long as its frames say: the whole is past an
    /// Int64 of nanoseconds, and saturates (the browser asks it whether the animation has ended).
    @Test func theLongestTimelineSaturates() {
        let timeline = AnimationTimeline(delays: [.seconds(65_535), .seconds(65_535)], loopCount: Int(UInt32.max))
        #expect(timeline.totalDuration == .nanoseconds(Int64.max))
        #expect(timeline.position(at: .seconds(65_536)) == AnimationTimeline.Position(frame: 1, pass: 0, nextChange: .seconds(131_070)))
    }

    @Test func framesFollowTheClockForTheLoopsAsked() async throws {
        let clock = ManualPlaybackClock()
        let terminal = Terminal()
        let player = TerminalAnimationPlayer(animation: Self.animation, loops: 2, clock: clock)
        let playing = Task { try await player.play(write: terminal.write) }
        await clock.waitForSleeper()
        #expect(terminal.frames == ["A"])
        #expect(terminal.text.hasPrefix("\u{1B}[?25l\n\u{1B}[1A\u{1B}7"), "cursor hidden, the image's rows reserved")
        clock.advance(by: .milliseconds(100))
        try await eventually { terminal.frames == ["A", "B"] }
        // Late: 250 ms past frame B's end is well into C; B is not shown again and A waits for the next pass.
        clock.advance(by: .milliseconds(450))
        try await eventually { terminal.frames == ["A", "B", "C"] }
        clock.advance(by: .milliseconds(50))
        try await eventually { terminal.frames == ["A", "B", "C", "A"] }
        clock.advance(by: .milliseconds(100))
        try await eventually { terminal.frames.count == 5 }
        // The last frame of the last pass stays on screen: playback ends as it appears.
        clock.advance(by: .milliseconds(200))
        try await playing.value
        #expect(terminal.frames.dropLast() == ["A", "B", "C", "A", "B", "C"])
        #expect(terminal.text.hasSuffix("\u{1B}[0m\u{1B}8\u{1B}[1B\r\u{1B}[?25h"), "below the image, cursor shown")
    }

    @Test func durationStopsOnTheFrameDueThen() async throws {
        let clock = ManualPlaybackClock()
        let terminal = Terminal()
        let player = TerminalAnimationPlayer(animation: Self.animation, duration: .milliseconds(250), clock: clock)
        let playing = Task { try await player.play(write: terminal.write) }
        await clock.waitForSleeper()
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleeper()
        #expect(clock.deadlines == [.milliseconds(250)], "it wakes at the end of the duration, not the frame")
        clock.advance(by: .seconds(5))
        try await playing.value
        #expect(Array(terminal.frames.dropLast()) == ["A", "B"])
    }

    @Test func cancellingRestoresTheTerminal() async throws {
        let clock = ManualPlaybackClock()
        let terminal = Terminal()
        let player = TerminalAnimationPlayer(animation: Self.animation, clock: clock)
        let playing = Task { try await player.play(write: terminal.write) }
        await clock.waitForSleeper()
        playing.cancel()
        await #expect(throws: CancellationError.self) { try await playing.value }
        #expect(terminal.text.hasSuffix("\u{1B}[?25h"))
        #expect(clock.deadlines.isEmpty)
    }

    /// Job control a test drives: it suspends and resumes whatever observes it, by hand.
    final class ManualJobControl: JobControl {
        private let observers = Locked<[(suspending: @Sendable () -> Void, resumed: @Sendable () -> Void)]>([])

        var isObserved: Bool { !observers.withLock { $0 }.isEmpty }

        func observingSuspension<Result: Sendable>(
            suspending: @escaping @Sendable () -> Void, resumed: @escaping @Sendable () -> Void, _ body: () async throws -> Result
        ) async throws -> Result {
            observers.withLock { $0.append((suspending, resumed)) }
            defer { observers.withLock { $0.removeAll() } }
            return try await body()
        }

        func suspend() { for observer in observers.withLock({ $0 }) { observer.suspending() } }
        func resume() { for observer in observers.withLock({ $0 }) { observer.resumed() } }
    }

    @Test func ctrlZGivesTheTerminalBackAndFgTakesItAgainBelow() async throws {
        let clock = ManualPlaybackClock()
        let terminal = Terminal()
        let jobs = ManualJobControl()
        let player = TerminalAnimationPlayer(animation: Self.animation, loops: 1, clock: clock)
        let playing = Task { try await player.play(write: terminal.write, jobControl: jobs) }
        await clock.waitForSleeper()
        #expect(jobs.isObserved)
        #expect(terminal.frames == ["A"])
        jobs.suspend()
        // Below the image, the cursor shown, attributes reset: the shell's terminal again.
        #expect(terminal.text.hasSuffix("\u{1B}[0m\u{1B}8\u{1B}[1B\r\u{1B}[?25h"))
        // A frame that falls due meanwhile is not drawn over the shell's lines.
        clock.advance(by: .milliseconds(100))
        await clock.waitForSleeper()
        #expect(terminal.text.hasSuffix("\u{1B}[?25h"))
        jobs.resume()
        // The rows reserved again where the cursor is now, the cursor hidden, the frame due drawn there.
        #expect(terminal.text.hasSuffix("\u{1B}[?25l\n\u{1B}[1A\u{1B}7\u{1B}8B\n"))
        clock.advance(by: .milliseconds(500))
        try await playing.value
        #expect(terminal.text.hasSuffix("\u{1B}[0m\u{1B}8\u{1B}[1B\r\u{1B}[?25h"))
        #expect(!jobs.isObserved, "nothing observes job control once playback ended")
        // A suspension after the end writes nothing.
        let ended = terminal.text
        jobs.suspend()
        #expect(terminal.text == ended)
    }
}
