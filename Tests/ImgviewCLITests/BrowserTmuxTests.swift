import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewSupport

/// The real binary's browser in tmux: keys in, screen out, against the loopback server.
@Suite("imgview browser in tmux", .enabled(if: TmuxSession.isAvailable, "needs tmux (scripts/setup.sh installs it)"))
struct BrowserTmuxTests {
    /// The bundled photos, by the short names the tests' catalog gives them.
    static let photos: [(name: String, file: String, contentType: String, format: String)] = [
        ("hopper", "01_grace_hopper.jpg", "image/jpeg", "JPEG 512×600"),
        ("chelsea", "03_chelsea_cat.png", "image/png", "PNG 451×300"),
        ("coffee", "04_coffee.png", "image/png", "PNG 600×400"),
        ("camera", "05_camera_gray.png", "image/png", "PNG 512×512"),
        ("cups", "09_cups_progressive.jpg", "image/jpeg", "JPEG 2560×1600"),
    ]

    /// A browser in tmux over a catalog of the bundled photos served on loopback.
    struct Fixture {
        let server: LoopbackServer
        let session: TmuxSession
        let folder: URL

        func path(_ name: String) -> String { "/images/\(name)" }
    }

    func withBrowser(
        columns: Int = 120, rows: Int = 36, faults: [String: [Fault]] = [:], extraEntries: [(String, String)] = [],
        titles: [String: String] = [:],
        arguments: [String] = [], environment: [String: String] = [:], _ body: (Fixture) async throws -> Void
    ) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        var entries: [String] = []
        for photo in Self.photos {
            let data = try Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/\(photo.file)"))
            server.publish(.data(data, contentType: photo.contentType), at: "/images/\(photo.name)", faults: faults[photo.name] ?? [])
            let title = titles[photo.name].map { #", "title": "\#($0)""# } ?? ""
            entries.append(
                #"{"name": "\#(photo.name)"\#(title), "url": "\#(server.url(for: "/images/\(photo.name)").absoluteString)"}"#)
        }
        for (name, url) in extraEntries { entries.append(#"{"name": "\#(name)", "url": "\#(url)"}"#) }
        let catalog = folder.appendingPathComponent("catalog.json")
        try Data(#"{"images": [\#(entries.joined(separator: ", "))]}"#.utf8).write(to: catalog)
        let command = TmuxSession.imgviewCommand(
            ["--catalog", catalog.path] + arguments,
            environment: environment.merging(["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path]) { $1 })
        let session = try await TmuxSession(columns: columns, rows: rows, command: command, directory: folder)
        let fixture = Fixture(server: server, session: session, folder: folder)
        do {
            try await body(fixture)
        } catch {
            await session.kill()
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        await session.kill()
        await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func tabsAppearAndSwitchingShowsTheRightMetadata() async throws {
        try await withBrowser { fixture in
            let session = fixture.session
            var screen = try await session.waitForScreen { $0.contains("source  network") }
            #expect(screen.contains("[ hopper ]  chelsea    coffee    camera    cups"))
            #expect(screen.contains("5 images"))
            #expect(screen.contains("┌ hopper ─"))
            #expect(screen.contains("format  JPEG 512×600"))
            #expect(screen.contains("q quit"))
            // Colour blocks through ncurses colour pairs: 256-colour escapes reach the pane.
            var coloured = false
            for _ in 0..<100 where !coloured {
                coloured = try await session.styledScreen().contains("\u{1B}[38;5;")
                if !coloured { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(coloured)
            try await session.send("Right")
            screen = try await session.waitForScreen { $0.contains("format  PNG 451×300") }
            #expect(screen.contains("[ chelsea ]"))
            #expect(screen.contains("┌ chelsea ─"))
            // Digits jump; going back is served from memory.
            try await session.send("5")
            screen = try await session.waitForScreen { $0.contains("format  JPEG 2560×1600") }
            #expect(screen.contains("[ cups ]"))
            try await session.send("1")
            screen = try await session.waitForScreen { $0.contains("[ hopper ]") && $0.contains("source  memory cache") }
            #expect(fixture.server.requests(for: "/images/hopper").count == 1)
            try await session.send("q")
            try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func aSlowDownloadShowsItsPictureBeforeHalfOfItHasArrived() async throws {
        // cups is a progressive JPEG (700 kB): its first scan, 18% of the file, is a whole picture.
        // The body comes slowly and stops at 45% until the picture is seen, however slow the build
        // or loaded the machine.
        let size =
            try FileManager.default.attributesOfItem(
                atPath: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/09_cups_progressive.jpg").path)[.size] as? Int
        let gate = BodyGate()
        defer { gate.open() }
        let held = Fault.held(after: (size ?? 0) * 45 / 100, until: gate, chunkSize: 4096, delayPerChunk: .milliseconds(20))
        try await withBrowser(faults: ["cups": [held]]) { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") }
            try await session.send("5")
            var seen: (percent: Int, screen: String)?
            let deadline = ContinuousClock.now + .seconds(60)
            while seen == nil, ContinuousClock.now < deadline {
                let plain = try await session.screen()
                let styled = try await session.styledScreen()
                let lines = plain.split(separator: "\n", omittingEmptySubsequences: false)
                let status = lines.last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }).map(String.init) ?? ""
                let percent = status.split(separator: " ").last.flatMap { Int($0.dropLast()) }
                // Image cells in the pane (coloured blocks), not the "loading cups…" line, while the status line is below half.
                if let percent, percent < 50, status.hasSuffix("%"), !plain.contains("loading cups"), styled.contains("\u{1B}[48;5;") {
                    seen = (percent, plain)
                }
                if seen == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(seen != nil, "a picture in the pane while under half of the bytes had arrived")
            if let seen { #expect(seen.percent < 50 && seen.screen.contains("[ cups ]")) }
            gate.open()
            try await session.waitForScreen(timeout: .seconds(40)) { $0.contains("format  JPEG 2560×1600") }
        }
    }

    @Test func rapidSwitchingAgainstASlowServerEndsOnTheLastSelection() async throws {
        let slow = [Fault.delay(.milliseconds(700))]
        try await withBrowser(faults: ["hopper": slow, "chelsea": slow, "coffee": slow, "camera": slow, "cups": slow]) { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("loading hopper") }
            try await session.send("Right", "Right", "Right", "Left")
            let screen = try await session.waitForScreen(timeout: .seconds(30)) { $0.contains("format  PNG 600×400") }
            #expect(screen.contains("[ coffee ]"))
            #expect(screen.contains("┌ coffee ─"))
            // And it stays there: once every response has been sent (or given up) and the browser has
            // done with them all, no late response has taken over.
            try await eventually(timeout: .seconds(30)) {
                fixture.server.requests().filter { $0.path.hasPrefix("/images/") }.allSatisfy { $0.outcome != .inProgress }
            }
            let pid = try #require(try await session.imgviewPID())
            try await Self.waitUntilQuiet(pid)
            let later = try await session.screen()
            #expect(later.contains("[ coffee ]") && later.contains("format  PNG 600×400"))
        }
    }

    @Test func resizeRedrawsWithinTheNewBoundsWithoutFetchingAgain() async throws {
        try await withBrowser(columns: 120, rows: 36) { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") }
            try await session.resize(columns: 80, rows: 24)
            let screen = try await session.waitForScreen {
                let lines = $0.split(separator: "\n", omittingEmptySubsequences: false)
                return lines.count >= 24 && lines[22].hasPrefix("└") && lines[22].hasSuffix("┘")
            }
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            for line in lines { #expect(DisplayWidth.of(String(line)) <= 80) }
            #expect(lines[1].hasPrefix("┌ preview") && lines[1].hasSuffix("┐"))
            try await session.resize(columns: 40, rows: 10)
            try await session.waitForScreen { $0.contains("terminal too small: 40×10") }
            try await session.resize(columns: 100, rows: 30)
            try await session.waitForScreen { $0.contains("format  JPEG 512×600") && $0.split(separator: "\n").count >= 29 }
            #expect(fixture.server.requests(for: "/images/hopper").count == 1)
        }
    }

    @Test func quittingRestoresTheTerminal() async throws {
        for key in ["q", "Escape", "C-c"] {
            try await withBrowser { fixture in
                let session = fixture.session
                try await session.waitForScreen { $0.contains("source  network") }
                #expect(try await session.format("#{alternate_on}") == "1")
                try await session.send(key)
                // stty's line (which starts "speed …") comes just after the exit status.
                let screen = try await session.waitForScreen { $0.contains("EXIT=") && $0.contains("speed ") }
                #expect(screen.contains("EXIT=0"), "after \(key)")
                #expect(try await session.format("#{alternate_on}") == "0")
                #expect(try await session.format("#{cursor_flag}") == "1", "the cursor is visible again")
                #expect(screen.contains(" icanon ") && screen.contains(" echo "), "cooked mode is back after \(key)")
            }
        }
    }

    /// Every signal that ends the process restores the terminal first, SIGQUIT included, before the
    /// Swift runtime's backtracer can print over the screen; the process really ends.
    @Test func signalsRestoreTheTerminalToo() async throws {
        for (signal, status) in [(SIGTERM, 143), (SIGSEGV, 139), (SIGQUIT, 131), (SIGUSR1, 138)] {
            try await withBrowser { fixture in
                let session = fixture.session
                try await session.waitForScreen { $0.contains("source  network") }
                guard let pid = try await session.imgviewPID() else {
                    Issue.record("imgview is not running")
                    return
                }
                kill(pid, signal)
                let screen = try await session.waitForScreen { $0.contains("EXIT=") && $0.contains("speed ") }
                #expect(screen.contains("EXIT=\(status)"), "\(screen)")
                #expect(try await session.format("#{alternate_on}") == "0")
                #expect(screen.contains(" icanon ") && screen.contains(" echo "), "cooked mode is back after signal \(signal)")
                #expect(!screen.contains("Backtrace") && !screen.contains("crashed"), "nothing printed over it: \(screen)")
            }
        }
    }

    @Test func anUnreachableImageShowsAnErrorAndTheBrowserKeepsWorking() async throws {
        try await withBrowser(extraEntries: [("gone", "http://127.0.0.1:9/nothing.png")]) { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") }
            try await session.send("6")
            let screen = try await session.waitForScreen { $0.contains("could not show gone") }
            #expect(screen.contains("[ gone ]"))
            #expect(screen.contains("status  failed"))
            #expect(screen.contains("refused"))
            try await session.send("Left")
            try await session.waitForScreen { $0.contains("[ cups ]") && $0.contains("format  JPEG 2560×1600") }
        }
    }

    /// The preview pane's text on a 120×36 screen, without its border.
    static func previewPane(of screen: String) -> [String] {
        let area = BrowserLayout(size: TerminalSize(columns: 120, rows: 36)).previewArea
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(Array.init)
        return lines.dropFirst(area.row).prefix(area.height).map { String($0.dropFirst(area.column).prefix(area.width)) }
    }

    /// The CPU time a process has used, in clock ticks (user and system), from /proc/PID/stat.
    static func cpuTicks(of pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command's name, which is in parentheses and may hold spaces.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return try #require(Int(fields[11])) + #require(Int(fields[12]))
    }

    /// Waits until `pid` has used no CPU for 300 ms (at most 10 s): the neighbours' prefetches,
    /// decoded after the selected tab is on screen, are done.
    /// Waits until the process used no CPU for two 300 ms windows in a row: with 10 ms ticks, one
    /// quiet window can fall between the ticks of work still winding down (slow under ASan).
    /// Returns whether it came to rest.
    @discardableResult
    static func waitUntilQuiet(_ pid: Int32) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        var last = try cpuTicks(of: pid)
        var quietWindows = 0
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(300))
            let now = try cpuTicks(of: pid)
            quietWindows = now == last ? quietWindows + 1 : 0
            if quietWindows == 2 { return true }
            last = now
        }
        return false
    }

    @Test func anAnimatedGIFPlaysInThePaneAndSpacePausesItWithoutUsingCPU() async throws {
        try await withBrowser(extraEntries: [("anim", Fixtures.url("slideshow.gif").absoluteString)]) { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") }
            try await session.send("6")
            // Three photographs, half a second each: the pane shows one, then the next.
            let first = try await session.waitForScreen { $0.contains("frame   1 of 3") }
            #expect(first.contains("frames  3 in 1.5 s, forever"))
            let second = try await session.waitForScreen { $0.contains("frame   2 of 3") }
            #expect(Self.previewPane(of: first) != Self.previewPane(of: second))
            #expect(Self.previewPane(of: second).joined().contains { !" │".contains($0) }, "the pane is not empty")
            let third = try await session.waitForScreen { $0.contains("frame   3 of 3") }
            #expect(Self.previewPane(of: third) != Self.previewPane(of: second))

            try await session.send("Space")
            let paused = try await session.waitForScreen { $0.contains("· paused") }
            let pid = try #require(try await session.imgviewPID())
            // Paused, the process comes to rest (no frame timer: BrowserPlaybackTests proves nothing is
            // scheduled on the clock) and the pane has not moved on.
            #expect(try await Self.waitUntilQuiet(pid), "the paused browser never came to rest")
            #expect(Self.previewPane(of: try await session.screen()) == Self.previewPane(of: paused))

            // Space plays on: the next frame comes.
            let pausedFrame = try #require((1...3).first { paused.contains("frame   \($0) of 3 · paused") })
            try await session.send("Space")
            try await session.waitForScreen { !$0.contains("paused") && !$0.contains("frame   \(pausedFrame) of 3") }

            // In ASCII too.
            try await session.send("m")
            let ascii = try await session.waitForScreen { $0.contains("preview · ascii") }
            let shownFrame = try #require((1...3).first { ascii.contains("frame   \($0) of 3") })
            let next = try await session.waitForScreen { $0.contains("frame   \(shownFrame % 3 + 1) of 3") }
            #expect(Self.previewPane(of: next) != Self.previewPane(of: ascii))
        }
    }

    /// A title and a server header carrying escape sequences are shown as text; the terminal obeys neither.
    @Test func escapeSequencesFromOutsideAreShownNotObeyed() async throws {
        try await withBrowser(
            faults: ["chelsea": [.body(Data("<html>".utf8), contentType: "text/html\u{1B}]2;pwned\u{07}")]],
            titles: ["hopper": #"\u001b]2;pwned\u0007\u001b[31mred"#]
        ) { fixture in
            let session = fixture.session
            let screen = try await session.waitForScreen { $0.contains("source  network") }
            #expect(screen.contains("?]2;pwned??[31mred"))
            try await session.send("Right")
            let failed = try await session.waitForScreen { $0.contains("could not show chelsea") }
            #expect(failed.contains("not an image (text/html?]2;pwned?)"))
            #expect(try await session.format("#{pane_title}") != "pwned")
        }
    }

    @Test func saveWritesTheImageIntoTheWorkingFolder() async throws {
        try await withBrowser { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") }
            try await session.send("d")
            try await session.waitForScreen { $0.contains("saved hopper to ./hopper.jpg") }
            try await session.send("d")
            try await session.waitForScreen { $0.contains("saved hopper to ./hopper-1.jpg") }
            let original = try Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))
            #expect(try Data(contentsOf: fixture.folder.appendingPathComponent("hopper.jpg")) == original)
            #expect(try Data(contentsOf: fixture.folder.appendingPathComponent("hopper-1.jpg")) == original)
        }
    }

    @Test func helpCacheAndModeKeys() async throws {
        try await withBrowser { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") && $0.contains("preview · blocks") }
            try await session.send("?")
            try await session.waitForScreen { $0.contains("┌ keys ") && $0.contains("reload, bypassing the caches") }
            try await session.send("x")
            try await session.waitForScreen { !$0.contains("┌ keys ") }
            try await session.send("c")
            let cache = try await session.waitForScreen { $0.contains("┌ disk cache ") }
            #expect(cache.contains("hopper"))
            try await session.send("Escape")
            try await session.waitForScreen { !$0.contains("┌ disk cache ") }
            try await session.send("m")
            try await session.waitForScreen { $0.contains("preview · ascii") }
            try await session.send("r")
            try await eventually { fixture.server.requests(for: "/images/hopper").count == 2 }
            try await session.waitForScreen { $0.contains("source  network") && !$0.contains("loading") }
        }
    }

    /// `m` goes through the modes on offer, the one named by IMGVIEW_MODE first although tmux
    /// (no passthrough here) draws no pixels, and the status line and the help say where it is.
    @Test func mCyclesThePreviewModesAndTheStatusLineSaysWhich() async throws {
        try await withBrowser(environment: ["IMGVIEW_MODE": "iterm"]) { fixture in
            let session = fixture.session
            // A pixel preview costs more than a text one (a PNG to write), on a machine the other tests load.
            let iterm = try await session.waitForScreen(timeout: .seconds(60)) {
                $0.contains("source  network") && $0.contains("preview · iterm")
            }
            // The pane holds blank cells where the pixels go: no block characters.
            #expect(!iterm.contains("▀") && !iterm.contains("▄"))
            try await session.send("m")
            try await session.waitForScreen {
                $0.contains("preview · blocks") && $0.contains("preview mode blocks · m: iterm → [blocks] → ascii")
            }
            try await session.send("m")
            try await session.waitForScreen {
                $0.contains("preview · ascii") && $0.contains("preview mode ascii · m: iterm → blocks → [ascii]")
            }
            try await session.send("m")
            try await session.waitForScreen { $0.contains("preview · iterm") && $0.contains("m: [iterm] → blocks → ascii") }
            try await session.send("?")
            try await session.waitForScreen { $0.contains("preview modes here: [iterm] → blocks → ascii") }
        }
    }

    @Test func withoutColoursTheBrowserUsesAsciiAndMSwitches() async throws {
        try await withBrowser(environment: ["NO_COLOR": "1"]) { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") && $0.contains("preview · ascii") }
            #expect(try await session.styledScreen().contains("\u{1B}[38;5;") == false)
            try await session.send("m")
            try await session.waitForScreen { $0.contains("preview · blocks") }
        }
    }

    /// The pane in the colours `show` would print: 24-bit under COLORTERM=truecolor (which a
    /// 256-colour terminfo cannot name), the 16 ANSI colours under an 8-colour terminfo; switching
    /// tabs and opening and closing the panels leaves not one cell of another picture behind.
    @Test(arguments: [
        ["TERM": "tmux-256color", "COLORTERM": "truecolor"], ["TERM": "xterm"], ["TERM": "screen"],
    ])
    func thePaneUsesTheColoursShowWouldAndLeavesNothingBehind(environment: [String: String]) async throws {
        let trueColor = environment["COLORTERM"] == "truecolor"
        try await withBrowser(environment: environment) { fixture in
            let session = fixture.session
            try await session.waitForScreen { $0.contains("source  network") && $0.contains("preview · blocks") }
            let first = try await settledPane(session)
            let styled = try await session.styledScreen()
            #expect(!styled.contains("\u{1B}[38;5;") && !styled.contains("\u{1B}[48;5;"))
            if trueColor {
                #expect(styled.contains("\u{1B}[38;2;") && styled.contains("\u{1B}[48;2;"))
            } else {
                #expect(!styled.contains(";2;"))
                // Bright colours, which an 8-colour terminfo has no number for.
                #expect(styled.firstMatch(of: #/\x1B\[(9[0-7]|10[0-7])m/#) != nil)
            }
            try await session.send("Right")
            try await session.waitForScreen { $0.contains("format  PNG 451×300") && !$0.contains("loading") }
            #expect(try await settledPane(session) != first)
            try await session.send("Left")
            try await session.waitForScreen { $0.contains("format  JPEG 512×600") && $0.contains("source  memory cache") }
            #expect(try await settledPane(session, toBe: first) == first, "the wider picture left cells behind")
            try await session.send("?")
            try await session.waitForScreen { $0.contains("┌ keys ") }
            try await session.send("x")
            try await session.waitForScreen { !$0.contains("┌ keys ") }
            #expect(try await settledPane(session, toBe: first) == first, "the help panel left cells behind")
            try await session.send("c")
            try await session.waitForScreen { $0.contains("┌ disk cache ") }
            try await session.send("Escape")
            try await session.waitForScreen { !$0.contains("┌ disk cache ") }
            #expect(try await settledPane(session, toBe: first) == first, "the cache panel left cells behind")
            try await session.send("q")
            try await session.waitForScreen { $0.contains("EXIT=0") }
            #expect(!(try await session.styledScreen()).contains(";2;"))
        }
    }

    /// The pane once it stops changing (or once it is `expected`; the last one after 5 seconds).
    private func settledPane(_ session: TmuxSession, toBe expected: [String]? = nil) async throws -> [String] {
        var last = try await paneText(session)
        for _ in 0..<25 {
            try await Task.sleep(for: .milliseconds(200))
            let now = try await paneText(session)
            if expected.map({ now == $0 }) ?? (now == last) { return now }
            last = now
        }
        return last
    }

    /// The preview pane's lines with their colours: what lies between the pane's borders.
    private func paneText(_ session: TmuxSession) async throws -> [String] {
        try await session.styledScreen().split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            let parts = line.split(separator: "│", omittingEmptySubsequences: false)
            return parts.count > 2 ? String(parts[1]) : nil
        }
    }

    @Test func theDemoOpensTheBrowserOverTheBundledImages() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try await TmuxSession(
            columns: 160, rows: 40, command: TmuxSession.imgviewCommand(["demo"], environment: ["IMGVIEW_CACHE_DIR": folder.path]))
        do {
            let screen = try await session.waitForScreen { $0.contains("source  network") }
            #expect(screen.contains("[ hopper ]") && screen.contains("6 images"))
            #expect(screen.contains("title   Grace Hopper"))
            try await session.send("q")
            try await session.waitForScreen { $0.contains("EXIT=0") }
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }
}
