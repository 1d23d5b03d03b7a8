import Foundation
import Testing

@testable import ImgviewBrowser
@testable import ImgviewImaging

/// The browser's pixel pane inside tmux inside real terminal emulators (Xvfb): tmux's status line
/// on top, the window split with another pane on the left, the browser in the right pane, a second
/// window beside. The image is drawn inside the browser's pane, a tab switch leaves nothing of the
/// previous image, switching tmux windows takes it away and switching back draws it again, the
/// other pane and the status line are never drawn over, and quitting leaves only the background
/// with tmux's pane title unchanged.
@Suite("The browser's pixel pane inside tmux in real terminal emulators (Xvfb)", .serialized)
struct BrowserTmuxPixelTests {
    static let wide = BrowserPixelTests.wide
    static let tall = BrowserPixelTests.tall
    static let grid = (columns: 100, rows: 30)

    /// tmux inside an emulator: its server, the browser's pane and where that pane is.
    final class Setup {
        let tmux: String
        let socket = "imgview-pane-\(UUID().uuidString.prefix(8))"
        let folder: URL
        var session: EmulatorSession?
        /// The browser's pane's preview area in the emulator's cells.
        var previewCells = (0, 0, 0, 0)
        /// The same in the pane's cells (its size, for the layout of a preview).
        var previewArea = Rectangle(column: 0, row: 0, width: 0, height: 0)
        /// The right pane in the emulator's cells.
        var paneCells = (0, 0, 0, 0)
        /// The left pane (and the status line above it), which no image may cover.
        var leftCells = (0, 0, 0, 0)
        /// tmux's status line.
        let statusCells = (0, 0, 100, 1)

        init(tmux: String) throws {
            self.tmux = tmux
            folder = try makeTemporaryDirectory()
        }

        func command(_ arguments: String...) async throws -> String {
            let (status, output) = try await EmulatorSession.run(tmux, ["-L", socket] + arguments)
            guard status == 0 else { throw HarnessError("tmux \(arguments.joined(separator: " ")) failed: \(output)") }
            return output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func stop() {
            // The tmux server first: it holds a descriptor Foundation watches for the emulator's exit.
            let kill = Process()
            kill.executableURL = URL(fileURLWithPath: tmux)
            kill.arguments = ["-L", socket, "kill-server"]
            try? kill.run()
            kill.waitUntilExit()
            session?.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Starts `emulator` running tmux (`tmuxBinary`) with the browser of WIDE and TALL in the
    /// right pane (`mode`, else auto).
    /// `rightPane`, when given, is run there instead of the browser (a shell command; its errors
    /// go to the same file).
    func start(
        _ emulator: EmulatorSession.Emulator, tmuxBinary: String = "/usr/bin/tmux", mode: String? = nil, rightPane: String? = nil
    ) async throws -> Setup {
        let setup = try Setup(tmux: tmuxBinary)
        let config = setup.folder.appendingPathComponent("tmux.conf")
        try """
        set -g allow-passthrough on
        set -g default-terminal tmux-256color
        set -g escape-time 10
        set -g status-position top
        set -g status-style bg=default,fg=white
        set -g pane-border-style fg=white
        set -g pane-active-border-style fg=white
        """.write(to: config, atomically: true, encoding: .utf8)
        let quoted = TmuxSession.shellQuoted
        setup.session = try await EmulatorSession(
            emulator, columns: Self.grid.columns, rows: Self.grid.rows,
            command: "\(quoted(tmuxBinary)) -L \(setup.socket) -f \(quoted(config.path)) new-session -s t 'echo left pane; sleep 600'")
        let deadline = ContinuousClock.now + .seconds(40)
        while (try? await setup.command("has-session", "-t", "t")) == nil {
            guard ContinuousClock.now < deadline else { throw HarnessError("tmux did not start in \(emulator)") }
            try await Task.sleep(for: .milliseconds(200))
        }
        // Until the emulator's window has its size, the session has tmux's default one.
        while try await setup.command("display", "-p", "-t", "t", "#{window_width}x#{window_height}") != "100x29" {
            guard ContinuousClock.now < deadline else { throw HarnessError("the tmux window never took the emulator's size") }
            try await Task.sleep(for: .milliseconds(200))
        }
        // tmux draws sixel only once it knows its client's terminal does (from that terminal's answers).
        while tmuxBinary == Self.tmux35,
            try await !setup.command("display", "-p", "-t", "t", "#{client_termfeatures}").split(separator: ",").contains("sixel")
        {
            guard ContinuousClock.now < deadline else { throw HarnessError("tmux never found its terminal's sixel") }
            try await Task.sleep(for: .milliseconds(200))
        }
        _ = try await setup.command("new-window", "-d", "-t", "t:1", "echo second window; sleep 600")
        let browse = TmuxSession.imgviewCommand(
            ["browse", Self.wide.path, Self.tall.path] + (mode.map { ["--mode", $0] } ?? []),
            environment: ["IMGVIEW_CACHE_DIR": setup.folder.appendingPathComponent("cache").path])
        let errors = setup.folder.appendingPathComponent("stderr").path
        _ = try await setup.command(
            "split-window", "-h", "-l", "60", "-t", "t:0", "{ \(rightPane ?? browse); } 2> \(quoted(errors)); sleep 600")
        let fields = try await setup.command("display", "-p", "-t", "t:0.1", "#{pane_left},#{pane_top},#{pane_width},#{pane_height}")
            .split(separator: ",").compactMap { Int($0) }
        guard fields.count == 4 else { throw HarnessError("no pane geometry: \(fields)") }
        setup.paneCells = (fields[0], fields[1] + 1, fields[2], fields[3])
        // The status line on top: the window starts on the emulator's second row.
        let area = BrowserLayout(size: TerminalSize(columns: fields[2], rows: fields[3])).previewArea
        setup.previewArea = area
        setup.previewCells = (fields[0] + area.column, fields[1] + 1 + area.row, area.width, area.height)
        setup.leftCells = (0, 0, fields[0] - 1, Self.grid.rows)
        return setup
    }

    /// Screenshots until `cells` satisfy `condition` (or `timeout` passes); returns the last score.
    func wait(
        _ setup: Setup, _ name: String, cells: (Int, Int, Int, Int), showing source: URL, repaint: Bool = true,
        timeout: Duration = .seconds(30), until condition: (EmulatorSession.Similarity) -> Bool
    ) async throws -> EmulatorSession.Similarity {
        guard let session = setup.session else { throw HarnessError("no emulator running") }
        let deadline = ContinuousClock.now + timeout
        var attempt = 0
        while true {
            attempt += 1
            if repaint { try await session.repaint() }
            let shot = try await session.screenshot("\(name)-\(attempt)")
            let score = try await EmulatorSession.similarity(of: shot, to: source, cells: cells, grid: Self.grid)
            if condition(score) || ContinuousClock.now > deadline {
                print(
                    "tmux pane \(session.emulator) \(name): \(shot.path) \(score.ssim) \(score.box ?? []) \(score.imageFraction ?? -1)"
                )
                try await EmulatorSession.record(
                    shot, as: "\(setup.tmux == Self.tmux35 ? "tmux35" : "tmux")-\(name)-\(session.emulator)", crop: nil)
                return score
            }
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    /// The cell size tmux counts its client's pixels in (`9x19`), and the pixel size a source of
    /// `width × height` is drawn at in the browser's preview area in cells of that size.
    func drawnSize(_ setup: Setup, width: Int, height: Int) async throws -> (width: Int, height: Int) {
        let fields =
            try await setup.command("list-clients", "-t", "t", "-F", "#{client_cell_width},#{client_cell_height}")
            .split(separator: "\n").first?.split(separator: ",").compactMap { Int($0) } ?? []
        guard fields.count == 2 else { throw HarnessError("no cell size from tmux: \(fields)") }
        let layout = GraphicsLayout.fitting(
            width: width, height: height, columns: setup.previewArea.width, rows: setup.previewArea.height,
            cell: CellPixelSize(width: fields[0], height: fields[1]))
        return (layout.pixelWidth, layout.pixelHeight)
    }

    /// Whether the drawn box is the image's own pixels, no more: tmux's own sixel fills what its
    /// cells have beyond the pixels with register 0, which would show as a band below or beside
    /// the image unless it is the background. (tmux writes its copy in whole bands of six pixel
    /// rows inside the cells, squeezing it by up to five rows: a little shorter is right.)
    static func hasNoBand(_ score: EmulatorSession.Similarity, _ size: (width: Int, height: Int)) -> Bool {
        guard let box = score.box, box.count == 4 else { return false }
        return abs(box[2] - size.width) <= 2 && box[3] <= size.height + 2 && box[3] >= size.height - 6
    }

    /// The whole walk: the two images, a window switch and back, a zoom of the other pane, quitting.
    /// `repaintsHidden` false for xterm, which paints a sixel's pixels again under cells tmux only
    /// erased when its window is uncovered (tmux's doing, with its own sixel too: DECISIONS.md).
    /// `tmuxKeepsImages` for tmux's own sixel: the image is exactly the source's pixels (no band),
    /// and tmux draws it again itself, on `refresh-client` too (which the browser is not told of).
    func walk(
        _ emulator: EmulatorSession.Emulator, tmuxBinary: String = "/usr/bin/tmux", mode: String? = nil, repaintsHidden: Bool = true,
        tmuxKeepsImages: Bool = false
    )
        async throws
    {
        let setup = try await start(emulator, tmuxBinary: tmuxBinary, mode: mode)
        defer { setup.stop() }
        let titleBefore = try await setup.command("display", "-p", "-t", "t:0.1", "#{pane_title}")
        let everything = (0, 0, Self.grid.columns, Self.grid.rows)
        let clean = { (score: EmulatorSession.Similarity) in (score.imageFraction ?? 1) < 0.01 }
        let isWide = { (score: EmulatorSession.Similarity) in
            score.ssim > 0.85 && abs(BrowserPixelTests.aspect(score) - 451.0 / 300) < 0.08
        }
        let isTall = { (score: EmulatorSession.Similarity) in
            score.ssim > 0.85 && abs(BrowserPixelTests.aspect(score) - 512.0 / 600) < 0.06
        }

        let wide = try await wait(setup, "wide", cells: setup.previewCells, showing: Self.wide, timeout: .seconds(40), until: isWide)
        #expect(isWide(wide), "SSIM \(wide.ssim), box \(wide.box ?? [])")
        if tmuxKeepsImages {
            let size = try await drawnSize(setup, width: 451, height: 300)
            #expect(Self.hasNoBand(wide, size), "box \(wide.box ?? []), the image \(size.width)x\(size.height)")
        }
        let left = try await wait(setup, "wide-left", cells: setup.leftCells, showing: Self.wide, until: clean)
        #expect(clean(left), "the image over the other pane: \(left.imageFraction ?? 1)")
        let status = try await wait(setup, "wide-status", cells: setup.statusCells, showing: Self.wide, until: clean)
        #expect(clean(status), "the image over tmux's status line: \(status.imageFraction ?? 1)")

        // A tab switch: the tall image alone in the pane, nothing over the status line or the other pane.
        _ = try await setup.command("send-keys", "-t", "t:0.1", "Right")
        let tall = try await wait(setup, "tall", cells: setup.previewCells, showing: Self.tall, until: isTall)
        #expect(isTall(tall), "SSIM \(tall.ssim), box \(tall.box ?? [])")
        if tmuxKeepsImages {
            let size = try await drawnSize(setup, width: 512, height: 600)
            #expect(Self.hasNoBand(tall, size), "box \(tall.box ?? []), the image \(size.width)x\(size.height)")
        }
        let leftAfter = try await wait(setup, "tall-left", cells: setup.leftCells, showing: Self.tall, until: clean)
        #expect(clean(leftAfter), "left over the other pane or the status line: \(leftAfter.imageFraction ?? 1)")
        let statusAfter = try await wait(setup, "tall-status", cells: setup.statusCells, showing: Self.tall, until: clean)
        #expect(clean(statusAfter), "over tmux's status line after a tab switch: \(statusAfter.imageFraction ?? 1)")

        // Another tmux window: nothing of the image over it. Back: drawn again.
        _ = try await setup.command("next-window", "-t", "t")
        let away = try await wait(
            setup, "other-window", cells: everything, showing: Self.tall, repaint: repaintsHidden, timeout: .seconds(10), until: clean)
        #expect(clean(away), "the image over another tmux window: \(away.imageFraction ?? 1), box \(away.box ?? [])")
        _ = try await setup.command("previous-window", "-t", "t")
        let back = try await wait(setup, "back", cells: setup.previewCells, showing: Self.tall, until: isTall)
        #expect(isTall(back), "not drawn again after the window switch: SSIM \(back.ssim), box \(back.box ?? [])")
        if tmuxKeepsImages {
            // tmux draws the whole client again from what it holds, the image included, and tells
            // the browser nothing: what is on the screen then is tmux's.
            _ = try await setup.command("refresh-client")
            let refreshed = try await wait(
                setup, "refreshed", cells: setup.previewCells, showing: Self.tall, repaint: false, timeout: .seconds(10), until: isTall)
            #expect(isTall(refreshed), "tmux did not keep the image: SSIM \(refreshed.ssim), box \(refreshed.box ?? [])")
        }

        // The other pane zoomed over the browser's: nothing of the image; unzoomed: drawn again.
        _ = try await setup.command("resize-pane", "-Z", "-t", "t:0.0")
        let zoomed = try await wait(
            setup, "zoomed", cells: everything, showing: Self.tall, repaint: repaintsHidden, timeout: .seconds(10), until: clean)
        #expect(clean(zoomed), "the image over the zoomed pane: \(zoomed.imageFraction ?? 1)")
        _ = try await setup.command("resize-pane", "-Z", "-t", "t:0.0")
        let unzoomed = try await wait(setup, "unzoomed", cells: setup.previewCells, showing: Self.tall, until: isTall)
        #expect(isTall(unzoomed), "not drawn again after the zoom: SSIM \(unzoomed.ssim), box \(unzoomed.box ?? [])")

        // Quitting leaves only the background, and tmux's title for the pane as it was.
        _ = try await setup.command("send-keys", "-t", "t:0.1", "q")
        let quit = try await wait(setup, "quit", cells: everything, showing: Self.tall, timeout: .seconds(15), until: clean)
        #expect(clean(quit), "left after quitting: \(quit.imageFraction ?? 1), box \(quit.box ?? [])")
        if tmuxKeepsImages {
            // Nothing of it is tmux's either: drawn again from what tmux holds, the screen stays clean.
            _ = try await setup.command("refresh-client")
            let refreshed = try await wait(
                setup, "quit-refreshed", cells: everything, showing: Self.tall, repaint: false, timeout: .seconds(5), until: clean)
            #expect(clean(refreshed), "tmux kept the image after quitting: \(refreshed.imageFraction ?? 1)")
        }
        #expect(try await setup.command("display", "-p", "-t", "t:0.1", "#{pane_title}") == titleBefore)
        let stderr = (try? String(contentsOf: setup.folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
    }

    /// Real kitty 0.26.5 (Debian's), asked through tmux: it answers the kitty query but leaves the
    /// one with a virtual placement (`U=1`) unanswered, as a kitty before 0.28 (no Unicode
    /// placeholders) does, so its images are placed through passthrough.
    @Test func kittyBefore028AnswersThroughTmuxThatItHasNoPlaceholders() async throws {
        let report = try makeTemporaryDirectory().appendingPathComponent("terminal.json")
        defer { try? FileManager.default.removeItem(at: report.deletingLastPathComponent()) }
        let setup = try await start(
            .kitty,
            rightPane: TmuxSession.imgviewCommand(["terminal", "--json"])
                + " > \(TmuxSession.shellQuoted(report.path)); touch \(TmuxSession.shellQuoted(report.path)).done")
        defer { setup.stop() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: report.path + ".done"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
        let kitty = (object["graphics"] as? [String: Any])?["kitty"] as? [String: Any]
        #expect(object["terminal"] as? String == "kitty(0.26.5)", "\(object)")
        #expect(kitty?["available"] as? Bool == true && object["kitty_placeholders"] as? Bool == false, "\(object)")
        #expect((kitty?["reason"] as? String ?? "").contains("kitty(0.26.5) did not take a virtual placement (U=1)"), "\(object)")
    }

    @Test func kittyDrawsInsideThePaneAndNeverOverAnotherWindow() async throws {
        try await walk(.kitty)
    }

    @Test func mltermDrawsITermImagesInsideThePaneAndAgainAfterASwitch() async throws {
        try await walk(.mlterm)
    }

    @Test func xtermDrawsSixelThroughPassthroughInsideThePane() async throws {
        try await walk(.xterm, mode: "sixel", repaintsHidden: false)
    }

    static let tmux35 = "/opt/tmux-3.5a/usr/bin/tmux"

    /// `show` in tmux 3.5a in xterm (`auto`, and `--mode sixel`): tmux's own sixel, written plain
    /// at the pane's cursor in whole cells of tmux's size, its rows reserved so that the prompt
    /// comes after it, inside its pane, without a band; kept by tmux through a window switch.
    @Test(arguments: [String?.none, "sixel"])
    func showInTmux35DrawsTmuxsOwnSixelAndThePromptFollowsIt(mode: String?) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.tmux35) else {
            throw HarnessError("\(Self.tmux35) is missing: run scripts/setup-emulators.sh (make test does)")
        }
        // 30×10 cells of 9×19: the cat is 270×180 pixels, 10 rows of which the last is not whole.
        let show = TmuxSession.imgviewCommand(
            ["show", Self.wide.path, "--size", "30x10"] + (mode.map { ["--mode", $0] } ?? []),
            environment: ["IMGVIEW_CACHE_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("imgview-show35").path])
        let setup = try await start(
            .xterm, tmuxBinary: Self.tmux35, rightPane: "printf '\\033[?25l'; echo before; \(show); echo AFTER")
        defer { setup.stop() }
        let deadline = ContinuousClock.now + .seconds(30)
        var lines: [String] = []
        while !lines.contains("AFTER") {
            guard ContinuousClock.now < deadline else { throw HarnessError("show did not finish: \(lines)") }
            try await Task.sleep(for: .milliseconds(200))
            lines = try await setup.command("capture-pane", "-p", "-t", "t:0.1").components(separatedBy: "\n")
        }
        let before = try #require(lines.firstIndex(of: "before"))
        let after = try #require(lines.firstIndex(of: "AFTER"))
        #expect(after - before == 11, "the image's 10 rows between: \(lines)")
        let stderr = (try? String(contentsOf: setup.folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
        let pane = setup.paneCells
        let rows = (pane.0, pane.1 + before + 1, pane.2, 10)
        let isCat = { (score: EmulatorSession.Similarity) in
            score.ssim > 0.85 && abs(BrowserPixelTests.aspect(score) - 451.0 / 300) < 0.06
        }
        let clean = { (score: EmulatorSession.Similarity) in (score.imageFraction ?? 1) < 0.01 }
        let name = "show-\(mode ?? "auto")"
        let drawn = try await wait(setup, name, cells: rows, showing: Self.wide, repaint: false, until: isCat)
        #expect(isCat(drawn), "SSIM \(drawn.ssim), box \(drawn.box ?? [])")
        #expect(Self.hasNoBand(drawn, (270, 180)), "box \(drawn.box ?? [])")
        let left = try await wait(setup, "\(name)-left", cells: setup.leftCells, showing: Self.wide, repaint: false, until: clean)
        #expect(clean(left), "the image over the other pane: \(left.imageFraction ?? 1)")
        // tmux keeps it: away to another window and back, drawn again by tmux (imgview has ended).
        _ = try await setup.command("next-window", "-t", "t")
        let everything = (0, 0, Self.grid.columns, Self.grid.rows)
        let away = try await wait(
            setup, "\(name)-other-window", cells: everything, showing: Self.wide, repaint: false, timeout: .seconds(10), until: clean)
        #expect(clean(away), "the image over another tmux window: \(away.imageFraction ?? 1)")
        _ = try await setup.command("previous-window", "-t", "t")
        let back = try await wait(setup, "\(name)-back", cells: rows, showing: Self.wide, repaint: false, until: isCat)
        #expect(isCat(back) && Self.hasNoBand(back, (270, 180)), "SSIM \(back.ssim), box \(back.box ?? [])")
    }

    /// tmux 3.5a, built with sixel: `auto` takes sixel from tmux's own answer and writes it plain,
    /// in whole cells of tmux's size; tmux keeps it and draws it again itself.
    @Test func xtermInTmux35DrawsTmuxsOwnSixelInsideThePane() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.tmux35) else {
            throw HarnessError("\(Self.tmux35) is missing: run scripts/setup-emulators.sh (make test does)")
        }
        try await walk(.xterm, tmuxBinary: Self.tmux35, repaintsHidden: false, tmuxKeepsImages: true)
    }
}
