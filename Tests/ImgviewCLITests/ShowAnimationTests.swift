import Foundation
import ImgviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `show` with an animated image, run as a process: it plays on a terminal for --loops passes or
/// --duration seconds and gives the terminal back as it found it; into a pipe it writes one frame.
@Suite("show plays animations")
struct ShowAnimationTests {
    /// Three photographs, half a second each, looping forever.
    static let slideshow = Fixtures.path("slideshow.gif")
    static let saveCursor = "\u{1B}7"
    static let restoreCursor = "\u{1B}8"

    /// The frames a played output drew, in order: what follows each return to the saved cursor.
    static func frames(in output: String) -> [String] {
        guard let start = output.range(of: saveCursor) else { return [] }
        let drawn = output[start.upperBound...].components(separatedBy: restoreCursor).dropFirst()
        // The last piece is the return below the image at the end, after a reset of the attributes.
        return drawn.dropLast().map { $0.hasSuffix("\u{1B}[0m") ? String($0.dropLast(4)) : $0 }
    }

    @Test func intoAPipeOnlyTheFirstFrameIsWritten() async throws {
        let piped = try await ImgviewProcess.run(
            ["show", Self.slideshow, "--mode", "ascii", "--colors", "none", "--size", "24x8", "--loops", "3"])
        #expect(piped.status == 0 && piped.stderr.isEmpty)
        #expect(!piped.stdout.contains("\u{1B}"), "no cursor movement, no colours")
        #expect(piped.stdout.split(separator: "\n", omittingEmptySubsequences: false).count == 9, "8 rows and the final newline")
        // It is the frame a terminal sees first.
        let played = try await ImgviewProcess.runOnTerminal(
            ["show", Self.slideshow, "--mode", "ascii", "--colors", "none", "--size", "24x8", "--loops", "1"], columns: 80)
        #expect(Self.frames(in: played.stdout).first == piped.stdout)
    }

    @Test func onATerminalLoopsPlaysEveryFramePerPassAndRestoresTheTerminal() async throws {
        let started = ContinuousClock.now
        let result = try await ImgviewProcess.runOnTerminal(
            ["show", Self.slideshow, "--mode", "blocks", "--colors", "256", "--size", "24x8", "--loops", "2"], columns: 80)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0 && result.stderr.isEmpty)
        let frames = Self.frames(in: result.stdout)
        #expect(frames.count == 6, "three frames, twice")
        #expect(Set(frames).count == 3)
        #expect(frames[0] == frames[3] && frames[1] == frames[4])
        #expect(elapsed >= .milliseconds(2500), "the last frame shows from 2.5 s")
        // The cursor hidden first, shown again last, below the image, colours reset.
        #expect(result.stdout.hasPrefix("\u{1B}[?25l"))
        #expect(result.stdout.hasSuffix("\u{1B}[0m\u{1B}8\u{1B}[8B\r\u{1B}[?25h"))
    }

    @Test func onATerminalDurationStopsAForeverAnimation() async throws {
        let started = ContinuousClock.now
        let result = try await ImgviewProcess.runOnTerminal(
            ["show", Self.slideshow, "--mode", "ascii", "--colors", "none", "--size", "24x8", "--duration", "0.7"], columns: 80)
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0)
        // 0 to 0.5 s the first frame, then the second until it stops at 0.7 s.
        #expect(Self.frames(in: result.stdout).count == 2)
        #expect(elapsed >= .milliseconds(700) && elapsed < .seconds(30))
        #expect(result.stdout.hasSuffix("\u{1B}[?25h"))
    }

    @Test func badDurationsAndLoopsAreRefused() async throws {
        for arguments in [["--duration", "0"], ["--duration", "-1"], ["--loops", "0"], ["--duration", "nan"]] {
            let result = try await ImgviewProcess.run(["show", Self.slideshow] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(arguments[0]), "\(arguments): \(result.stderr)")
        }
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "needs tmux (scripts/setup.sh installs it)"))
    func ctrlCStopsPlaybackAndGivesTheTerminalBack() async throws {
        let command = TmuxSession.imgviewCommand(
            ["show", Self.slideshow, "--mode", "blocks", "--size", "24x8"], environment: ["NO_COLOR": "1"])
        let session = try await TmuxSession(columns: 80, rows: 24, command: command)
        defer { Task { await session.kill() } }
        // Playing: the cursor is hidden and the picture is there.
        try await session.waitForScreen { $0.contains("▀") || $0.contains("▄") || $0.contains("█") }
        #expect(try await session.format("#{cursor_flag}") == "0")
        let pid = try #require(try await session.imgviewPID())
        kill(pid, SIGINT)
        let screen = try await session.waitForScreen { $0.contains("EXIT=") }
        #expect(screen.contains("imgview: interrupted"))
        #expect(screen.contains("EXIT=130"))
        #expect(try await session.format("#{cursor_flag}") == "1", "the cursor is shown again")
        let styled = try await session.styledScreen()
        let exitLine = try #require(styled.split(separator: "\n").first { $0.contains("EXIT=") })
        #expect(!exitLine.contains("\u{1B}["), "no attributes left on after the picture: \(exitLine)")
    }
}
