import Foundation
import ImgviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal as users have it: `TERM=xterm-256color` inside tmux, a shell with job control,
/// keys that terminfo does not name, Ctrl-Z and `fg`, Ctrl-\ — the browser and `show` keep
/// working and give the terminal back every time.
@Suite("Keys, suspension and signals in tmux", .enabled(if: TmuxSession.isAvailable, "needs tmux (scripts/setup.sh installs it)"))
struct TerminalLifeTmuxTests {
    static let photos = ["01_grace_hopper.jpg", "03_chelsea_cat.png", "04_coffee.png"]
    static let slideshow = Fixtures.path("slideshow.gif")

    /// An interactive shell in tmux, in a folder holding three photos, with `TERM=xterm-256color`.
    func withShell(columns: Int = 100, rows: Int = 30, _ body: (TmuxSession, URL) async throws -> Void) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for photo in Self.photos {
            try FileManager.default.copyItem(
                at: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/\(photo)"), to: folder.appendingPathComponent(photo)
            )
        }
        let session = try await TmuxSession(
            columns: columns, rows: rows, command: "PS1='$ ' TERM=xterm-256color bash --norc --noprofile -i", directory: folder)
        do {
            try await body(session, folder)
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }

    /// Types `arguments` as an imgview command line, with `TERM=xterm-256color`, and presses Enter.
    func run(_ arguments: [String], in session: TmuxSession, folder: URL, environment: [String: String] = [:]) async throws {
        let command = TmuxSession.imgviewCommand(
            arguments, environment: ["TERM": "xterm-256color", "IMGVIEW_CACHE_DIR": folder.path + "/cache"].merging(environment) { $1 })
        try await session.send("-l", command)
        try await session.send("Enter")
    }

    /// Once imgview has ended: asks the shell for its status and returns the screen showing it
    /// (a line `EXIT=N`, which nothing typed contains).
    func exitStatus(in session: TmuxSession) async throws -> String {
        // Typed only once the shell has the terminal again, or imgview might read the keys.
        let deadline = ContinuousClock.now + .seconds(20)
        while try await session.format("#{pane_current_command}") != "bash", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await session.send("-l", "echo \"EX\"IT=$?")
        try await session.send("Enter")
        return try await session.waitForScreen { $0.contains("EXIT=") }
    }

    /// The imgview process the pane's interactive shell runs (the pane runs `sh`, which runs bash).
    func imgviewPID(in session: TmuxSession) async throws -> Int32? {
        @Sendable func children(of pid: String, named name: String) throws -> [String] {
            let pgrep = Process()
            pgrep.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
            pgrep.arguments = ["-P", pid, "-x", name]
            let output = Pipe()
            pgrep.standardOutput = output
            try pgrep.run()
            pgrep.waitUntilExit()
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(
                String.init)
        }
        let pane = try await session.format("#{pane_pid}")
        return try await offPool {
            try children(of: pane, named: "bash").flatMap { try children(of: $0, named: "imgview") }.first.flatMap { Int32($0) }
        }
    }

    /// Polls tmux until the pane's cursor is shown (or hidden); fails after 20 seconds.
    func waitForCursor(in session: TmuxSession, shown: Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try await session.format("#{cursor_flag}") == (shown ? "1" : "0") { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the cursor was never \(shown ? "shown" : "hidden")", sourceLocation: sourceLocation)
    }

    @Test func homeEndAndUnknownSequencesUnderXtermTermInTmux() async throws {
        try await withShell { session, folder in
            try await run(Self.photos, in: session, folder: folder)
            try await session.waitForScreen { $0.contains("[ 01_grace_hopper.jpg ]") && $0.contains("format  JPEG 512×600") }
            // tmux sends End as ESC [ 4 ~, which xterm-256color's terminfo calls something else.
            try await session.send("End")
            try await session.waitForScreen { $0.contains("[ 04_coffee.png ]") && $0.contains("format  PNG 600×400") }
            try await session.send("Home")
            try await session.waitForScreen { $0.contains("[ 01_grace_hopper.jpg ]") && $0.contains("format  JPEG 512×600") }
            // Sequences the browser has no use for — F12 in another form, Alt-q, a focus report, a late
            // answer to a query — change nothing and quit nothing; the next key still works.
            for noise in ["\u{1B}[99~", "\u{1B}q", "\u{1B}[I", "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\", "\u{1B}[?62;4c"] {
                try await session.send("-l", noise)
            }
            try await session.send("Right")
            try await session.waitForScreen { $0.contains("[ 03_chelsea_cat.png ]") && $0.contains("format  PNG 451×300") }
            try await session.send("q")
            #expect(try await exitStatus(in: session).contains("EXIT=0"))
        }
    }

    @Test func afterCtrlZAndFgTheFirstArrowMoves() async throws {
        try await withShell { session, folder in
            try await run(Self.photos, in: session, folder: folder)
            try await session.waitForScreen { $0.contains("[ 01_grace_hopper.jpg ]") && $0.contains("format  JPEG 512×600") }
            try await session.send("C-z")
            try await session.waitForScreen { $0.contains("Stopped") }
            try await session.send("-l", "fg")
            try await session.send("Enter")
            try await session.waitForScreen { $0.contains("[ 01_grace_hopper.jpg ]") && $0.contains("q quit") }
            // The terminal is in keypad mode again: the arrow arrives as the browser expects it.
            #expect(try await session.format("#{keypad_cursor_flag}") == "1")
            try await session.send("Right")
            let screen = try await session.waitForScreen { $0.contains("[ 03_chelsea_cat.png ]") || $0.contains("$ ") }
            #expect(screen.contains("[ 03_chelsea_cat.png ]"), "the first arrow after fg quit the browser")
            try await session.send("q")
            #expect(try await exitStatus(in: session).contains("EXIT=0"))
            #expect(try await session.format("#{keypad_cursor_flag}") == "0", "keypad mode is left on quit")
        }
    }

    @Test func ctrlZDuringAnAnimationShowsTheCursorAndFgHidesItAgain() async throws {
        try await withShell { session, folder in
            try await run(["show", Self.slideshow, "--mode", "ascii", "--size", "24x6"], in: session, folder: folder)
            try await session.waitForScreen { $0.split(separator: "\n").count > 6 }
            try await waitForCursor(in: session, shown: false)
            try await session.send("C-z")
            try await session.waitForScreen { $0.contains("Stopped") }
            #expect(try await session.format("#{cursor_flag}") == "1", "the shell's prompt has its cursor while playback is stopped")
            try await session.send("-l", "fg")
            try await session.send("Enter")
            // Playing again below what the shell printed, the cursor hidden again.
            try await waitForCursor(in: session, shown: false)
            try await session.send("C-c")
            let screen = try await exitStatus(in: session)
            #expect(screen.contains("imgview: interrupted") && screen.contains("EXIT=130"))
            #expect(try await session.format("#{cursor_flag}") == "1")
        }
    }

    /// Ctrl-\ (SIGQUIT) to a playing animation: no crash report, no stall, the cursor back, 131.
    @Test func ctrlBackslashEndsAnAnimationLikeCtrlC() async throws {
        try await withShell { session, folder in
            try await run(["show", Self.slideshow, "--mode", "blocks", "--size", "24x8"], in: session, folder: folder)
            try await waitForCursor(in: session, shown: false)
            let sent = ContinuousClock.now
            try await session.send("C-\\")
            try await session.waitForScreen { $0.contains("imgview: interrupted") || $0.contains("crashed") }
            #expect(ContinuousClock.now - sent < .seconds(10), "no crash reporter waiting for a key")
            let screen = try await exitStatus(in: session)
            #expect(screen.contains("imgview: interrupted") && screen.contains("EXIT=131"), "\(screen)")
            #expect(!screen.contains("crashed") && !screen.contains("Backtrace"))
            #expect(try await session.format("#{cursor_flag}") == "1", "the cursor is shown again")
        }
    }

    /// A real crash (the process aborts itself; gdb makes it) in the browser's raw mode and
    /// alternate screen: the terminal is put back before anything is printed, then a debug build
    /// hands the crash to the Swift runtime's reporter, or with the reporter turned off one line
    /// says what happened; the process dies of the signal.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"), "needs gdb (scripts/setup.sh installs it)"))
    func aRealCrashRestoresTheTerminalFirst() async throws {
        // A sanitizer's runtime takes the fatal signals itself: the Swift runtime's reporter never
        // runs there, so only the one-line report is looked for.
        for reporter in runsUnderSanitizer ? ["enable=no"] : ["enable=no", "enable=yes,interactive=no"] {
            try await withShell { session, folder in
                try await run(Self.photos, in: session, folder: folder, environment: ["SWIFT_BACKTRACE": reporter])
                try await session.waitForScreen { $0.contains("format  JPEG 512×600") }
                let pid = try #require(try await imgviewPID(in: session))
                try await session.runBeside(
                    "gdb -p \(pid) -batch -ex 'handle SIGABRT nostop noprint pass' -ex 'call (void)abort()' >/dev/null 2>&1")
                let screen = try await exitStatus(in: session)
                #expect(screen.contains("EXIT=134"), "\(screen)")
                #expect(try await session.format("#{alternate_on}") == "0")
                if reporter == "enable=no" {
                    #expect(screen.contains("imgview: crashed (SIGABRT)"), "\(screen)")
                } else {
                    #expect(screen.contains("Backtrace took") && !screen.contains("imgview: crashed"), "the runtime's report: \(screen)")
                }
                try await session.send("-l", "stty -a | tr '\\n' ' '; echo")
                try await session.send("Enter")
                let modes = try await session.waitForScreen { $0.contains("speed ") }
                #expect(modes.contains(" icanon ") && modes.contains(" echo "), "cooked mode is back")
            }
        }
    }
}
