import Foundation
import ImgviewImaging
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser

/// The browser's grid drawn in pixels inside real terminal emulators under Xvfb, with keys typed
/// into the window: each visible cell shows its own image, scrolling to the last row leaves none
/// of the old images (a cell that now shows another shape, or none, would keep a stray edge), the
/// help panel takes them all away, and quitting leaves only the background.
@Suite("The browser's grid in pixels in real terminal emulators (Xvfb)", .serialized)
struct BrowserGridPixelEmulatorTests {
    /// 451×300 and 512×600.
    static let wide = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/03_chelsea_cat.png")
    static let tall = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg")
    /// The images in the grid, in their order: a row never has the shapes of the row above.
    static let sources = [wide, tall, tall, wide, wide, tall, tall]
    static let window = (columns: 100, rows: 30)

    static func aspect(of source: URL) -> Double { source == wide ? 451.0 / 300 : 512.0 / 600 }

    /// Where the grid's cells are in this window for the cell size the terminal reports: the
    /// browser's own layout.
    static func layout(cell: CellPixelSize) -> GridLayout {
        var state = BrowserState(
            images: [], terminalSize: TerminalSize(columns: window.columns, rows: window.rows), mode: .blocks, colors: .full)
        state.grid = GridViewport(cell: cell)
        return state.gridLayout!
    }

    static func cells(_ box: Rectangle) -> (Int, Int, Int, Int) { (box.column, box.row, box.width, box.height) }

    /// What `imgview terminal --json` found out about the cell size, once it has written it.
    func cellSize(in file: URL) async throws -> CellPixelSize {
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            if let data = try? Data(contentsOf: file), let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let cell = json["cell_pixels"] as? [String: Any], let width = cell["width"] as? Int, let height = cell["height"] as? Int
            {
                return CellPixelSize(width: width, height: height)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw HarnessError("imgview terminal --json wrote no cell size to \(file.path)")
    }

    /// How each cell of grid row `firstRow` on looks: its image's score, or (past the last image)
    /// how much of it is an image's pixels.
    struct CellCheck {
        var index: Int
        var score: EmulatorSession.Similarity
        var passes: Bool
    }

    /// Screenshots until every visible cell (with `firstRow` at the top) shows its own image,
    /// fitted with its aspect, and every slot past the last image is empty (or `timeout` passes).
    func waitForCells(
        _ session: EmulatorSession, _ name: String, layout: GridLayout, firstRow: Int, timeout: Duration = .seconds(40)
    ) async throws -> [CellCheck] {
        let deadline = ContinuousClock.now + timeout
        var attempt = 0
        while true {
            attempt += 1
            try await session.repaint()
            let shot = try await session.screenshot("\(name)-\(attempt)")
            var checks: [CellCheck] = []
            for index in (firstRow * layout.columns)..<((firstRow + layout.visibleRows) * layout.columns) {
                guard let box = layout.imageBox(of: index, firstRow: firstRow) else { continue }
                if index < Self.sources.count {
                    let source = Self.sources[index]
                    let score = try await EmulatorSession.similarity(
                        of: shot, to: source, cells: Self.cells(box), grid: Self.window)
                    let aspect = score.box.map { Double($0[2]) / Double(max(1, $0[3])) } ?? 0
                    checks.append(
                        CellCheck(index: index, score: score, passes: score.ssim > 0.7 && abs(aspect - Self.aspect(of: source)) < 0.08))
                } else {
                    let score = try await EmulatorSession.similarity(of: shot, to: Self.wide, cells: Self.cells(box), grid: Self.window)
                    checks.append(CellCheck(index: index, score: score, passes: (score.imageFraction ?? 1) < 0.01))
                }
            }
            if passes(checks) || ContinuousClock.now > deadline {
                try await EmulatorSession.record(shot, as: "grid-\(name)-\(session.emulator)", crop: nil)
                return checks
            }
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    func passes(_ checks: [CellCheck]) -> Bool {
        checks.allSatisfy { $0.passes }
    }

    func describe(_ checks: [CellCheck]) -> String {
        checks.map { "cell \($0.index): SSIM \($0.score.ssim), box \($0.score.box ?? []), image \($0.score.imageFraction ?? -1)" }
            .joined(separator: "; ")
    }

    /// The grid's images copied into `folder` as `1.png`, `2.jpg`, …; their paths, quoted for a shell.
    static func copySources(into folder: URL) throws -> [String] {
        try sources.enumerated().map { index, source in
            let file = folder.appendingPathComponent("\(index + 1).\(source.pathExtension)")
            try FileManager.default.copyItem(at: source, to: file)
            return TmuxSession.shellQuoted(file.path)
        }
    }

    func grid(in emulator: EmulatorSession.Emulator) async throws {
        let binary = TmuxSession.shellQuoted(ImgviewProcess.binary.path)
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try Self.copySources(into: folder)
        let errors = folder.appendingPathComponent("stderr")
        let inputs = folder.appendingPathComponent("inputs")
        let profile = folder.appendingPathComponent("terminal.json")
        var keysRead: [String] { ((try? String(contentsOf: inputs, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        let environment = [
            "IMGVIEW_INPUT_LOG=\(TmuxSession.shellQuoted(inputs.path))",
            "IMGVIEW_CACHE_DIR=\(TmuxSession.shellQuoted(folder.appendingPathComponent("cache").path))",
            "XDG_CACHE_HOME=\(TmuxSession.shellQuoted(folder.appendingPathComponent("xdg").path))",
        ].joined(separator: " ")
        let command = [
            "\(binary) terminal --json > \(TmuxSession.shellQuoted(profile.path));",
            "\(environment) \(binary) browse \(files.joined(separator: " "))",
            "2> \(TmuxSession.shellQuoted(errors.path)); printf '\\033[?25l'",
        ].joined(separator: " ")
        let session = try await EmulatorSession(emulator, columns: Self.window.columns, rows: Self.window.rows, command: command)
        defer { session.stop() }
        let layout = Self.layout(cell: try await cellSize(in: profile))
        #expect(layout.columns >= 2 && Self.sources.count > layout.cellsPerScreen, "the test needs a grid that scrolls: \(layout)")

        try await waitForTheSingleView(session)

        try await session.press("g")
        let top = try await waitForCells(session, "top", layout: layout, firstRow: 0)
        #expect(passes(top), "\(describe(top)); keys read: \(keysRead)")

        // End: the last row at the bottom; every cell shows its new image, the slots after the
        // last image are empty.
        try await session.press("End")
        let lastRow = (Self.sources.count - 1) / layout.columns
        let firstRow = max(0, lastRow - layout.visibleRows + 1)
        // The images are copies of two files, so a cell whose new image is the old one's file keeps
        // the same picture in the same place, while ncurses scrolls the grid's lines under it.
        let end = try await waitForCells(session, "end", layout: layout, firstRow: firstRow)
        #expect(passes(end), "\(describe(end)); keys read: \(keysRead)")

        // The help panel takes every image away; closing it brings them back.
        try await session.press("question")
        let area = layout.area
        var help: EmulatorSession.Similarity?
        let helpDeadline = ContinuousClock.now + .seconds(30)
        repeat {
            try await session.repaint()
            help = try await EmulatorSession.similarity(
                of: try await session.screenshot("help"), to: Self.wide, cells: Self.cells(area), grid: Self.window)
            if (help?.imageFraction ?? 1) < 0.01 { break }
            try await Task.sleep(for: .milliseconds(300))
        } while ContinuousClock.now < helpDeadline
        #expect((help?.imageFraction ?? 1) < 0.01, "pixels under the help panel: \(help?.imageFraction ?? 1); keys read: \(keysRead)")
        try await session.press("question")
        let back = try await waitForCells(session, "back", layout: layout, firstRow: firstRow)
        #expect(passes(back), "\(describe(back)); keys read: \(keysRead)")

        // Quitting leaves nothing on the screen but the background.
        try await session.press("q")
        try await session.waitUntilDone(timeout: .seconds(20))
        try await session.repaint()
        let quit = try await EmulatorSession.similarity(of: try await session.screenshot("quit"), to: Self.tall)
        #expect(quit.box == nil, "left on the screen after quitting: \(quit.box ?? [])")
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
    }

    /// The process called `name` whose command line has `argument`, once it is stopped (state T).
    func stoppedProcess(named name: String, withArgument argument: String) async throws -> pid_t {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = pid_t(entry),
                    let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    stat.contains("(\(name)) T "),
                    let arguments = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                    arguments.split(separator: 0).contains(where: { String(decoding: $0, as: UTF8.self) == argument })
                else { continue }
                return pid
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("no stopped \(name) with \(argument) within 20 s of Ctrl-Z")
    }

    /// Ctrl-Z in the grid, under a shell with job control as users have one: the images go before
    /// the browser stops, leaving the shell's text alone, and `fg` draws every cell again.
    @Test(arguments: [EmulatorSession.Emulator.xterm, .kitty, .mlterm])
    func ctrlZTakesTheGridsImagesAwayAndFgDrawsThemAgain(in emulator: EmulatorSession.Emulator) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try Self.copySources(into: folder)
        let errors = folder.appendingPathComponent("stderr")
        let profile = folder.appendingPathComponent("terminal.json")
        let binary = TmuxSession.shellQuoted(ImgviewProcess.binary.path)
        let script = folder.appendingPathComponent("run")
        try [
            "\(binary) terminal --json > \(TmuxSession.shellQuoted(profile.path))",
            "IMGVIEW_CACHE_DIR=\(TmuxSession.shellQuoted(folder.appendingPathComponent("cache").path))"
                + " XDG_CACHE_HOME=\(TmuxSession.shellQuoted(folder.appendingPathComponent("xdg").path))"
                + " \(binary) browse \(files.joined(separator: " ")) 2> \(TmuxSession.shellQuoted(errors.path))",
        ].joined(separator: "\n").write(to: script, atomically: true, encoding: .utf8)
        let ready = folder.appendingPathComponent("ready")
        let startup = folder.appendingPathComponent("bashrc")
        try "PS1='$ '\ntouch \(TmuxSession.shellQuoted(ready.path))\n".write(to: startup, atomically: true, encoding: .utf8)
        let session = try await EmulatorSession(
            emulator, columns: Self.window.columns, rows: Self.window.rows,
            command: "bash --noprofile --rcfile \(TmuxSession.shellQuoted(startup.path)) -i")
        defer { session.stop() }
        // Typed at the prompt once the shell has started: a command run from the start-up file
        // would not be a job of its own (no job control there yet).
        try await eventually(timeout: .seconds(40)) { FileManager.default.fileExists(atPath: ready.path) }
        try await session.type(". \(script.path)")
        try await session.press("Return")
        let layout = Self.layout(cell: try await cellSize(in: profile))
        try await waitForTheSingleView(session)
        try await session.press("g")
        let top = try await waitForCells(session, "ctrl-z-top", layout: layout, firstRow: 0)
        #expect(passes(top), "\(describe(top))")

        try await session.press("ctrl+z")
        _ = try await stoppedProcess(named: "imgview", withArgument: folder.appendingPathComponent("1.png").path)
        try await session.repaint()
        let stopped = try await EmulatorSession.similarity(
            of: try await session.screenshot("stopped"), to: Self.wide, cells: Self.cells(layout.area), grid: Self.window)
        #expect((stopped.imageFraction ?? 1) < 0.01, "pixels left while the browser is stopped: \(stopped.imageFraction ?? 1)")

        try await session.type("fg")
        try await session.press("Return")
        let resumed = try await waitForCells(session, "ctrl-z-fg", layout: layout, firstRow: 0)
        #expect(passes(resumed), "\(describe(resumed))")
        try await session.press("q")
        try await session.type("exit")
        try await session.press("Return")
        try await session.waitUntilDone(timeout: .seconds(20))
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
    }

    /// Waits until the single view shows the first image (keys typed before the browser reads
    /// them would be lost).
    func waitForTheSingleView(_ session: EmulatorSession) async throws {
        let pane = BrowserLayout(size: TerminalSize(columns: Self.window.columns, rows: Self.window.rows)).previewArea
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            let shot = try await session.screenshot("single")
            let score = try await EmulatorSession.similarity(of: shot, to: Self.wide, cells: Self.cells(pane), grid: Self.window)
            if score.ssim > 0.8 { return }
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    @Test func xtermDrawsEachCellInSixelAndLeavesNothingBehind() async throws {
        try await grid(in: .xterm)
    }

    @Test func kittyDrawsEachCellAsItsOwnImageAndDeletesThem() async throws {
        try await grid(in: .kitty)
    }

    @Test func mltermDrawsEachCellAsAnITermImageAndLeavesNothingBehind() async throws {
        try await grid(in: .mlterm)
    }
}
