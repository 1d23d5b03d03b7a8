import Foundation
import Testing

@testable import ImgviewBrowser

/// The browser drawing its pane in pixels inside real terminal emulators under Xvfb, with keys
/// typed into the window: the image is inside the pane, a tab switch leaves no pixel of the
/// previous image, the help panel takes it away and gives it back, and quitting leaves nothing.
@Suite("The browser's pixel pane in real terminal emulators (Xvfb)", .serialized)
struct BrowserPixelTests {
    /// 451×300: as wide as the pane.
    static let wide = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/03_chelsea_cat.png")
    /// 512×600: as tall as the pane, much narrower than the wide one.
    static let tall = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg")
    static let grid = (columns: 100, rows: 30)

    /// The preview pane's cells on this screen.
    static var pane: (Int, Int, Int, Int) {
        let area = BrowserLayout(size: TerminalSize(columns: grid.columns, rows: grid.rows)).previewArea
        return (area.column, area.row, area.width, area.height)
    }

    /// Screenshots until the pane's score against `source` satisfies `condition` (or `timeout`
    /// passes); returns the last score.
    func waitForPane(
        _ session: EmulatorSession, _ name: String, showing source: URL, timeout: Duration = .seconds(30),
        until condition: (EmulatorSession.Similarity) -> Bool
    ) async throws -> EmulatorSession.Similarity {
        let deadline = ContinuousClock.now + timeout
        var attempt = 0
        while true {
            attempt += 1
            // What the terminal holds, not only what it last painted: an image it keeps under
            // blank-looking cells comes back when the window is uncovered.
            try await session.repaint()
            let shot = try await session.screenshot("\(name)-\(attempt)")
            let score = try await EmulatorSession.similarity(of: shot, to: source, cells: Self.pane, grid: Self.grid)
            if condition(score) || ContinuousClock.now > deadline {
                try await EmulatorSession.record(shot, as: "browse-\(name)-\(session.emulator)", crop: nil)
                return score
            }
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    static func aspect(_ score: EmulatorSession.Similarity) -> Double {
        guard let box = score.box, box.count == 4, box[3] > 0 else { return 0 }
        return Double(box[2]) / Double(box[3])
    }

    /// `imgview browse WIDE TALL` in `emulator` (mode auto): the pane through a tab switch, the
    /// help panel and quitting.
    func browse(in emulator: EmulatorSession.Emulator) async throws {
        let binary = TmuxSession.shellQuoted(ImgviewProcess.binary.path)
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let errors = folder.appendingPathComponent("stderr")
        let inputs = folder.appendingPathComponent("inputs")
        /// What the browser read, in order (`IMGVIEW_INPUT_LOG`).
        var keysRead: [String] { ((try? String(contentsOf: inputs, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        let command = [
            "IMGVIEW_INPUT_LOG=\(TmuxSession.shellQuoted(inputs.path))",
            "IMGVIEW_CACHE_DIR=\(TmuxSession.shellQuoted(folder.appendingPathComponent("cache").path))",
            "\(binary) browse \(TmuxSession.shellQuoted(Self.wide.path)) \(TmuxSession.shellQuoted(Self.tall.path))",
            "2> \(TmuxSession.shellQuoted(errors.path)); printf '\\033[?25l'",
        ].joined(separator: " ")
        let session = try await EmulatorSession(emulator, columns: Self.grid.columns, rows: Self.grid.rows, command: command)
        defer { session.stop() }

        let wide = try await waitForPane(session, "wide", showing: Self.wide, timeout: .seconds(40)) { $0.ssim > 0.85 }
        #expect(wide.ssim > 0.85, "SSIM \(wide.ssim), box \(wide.box ?? [])")
        #expect(abs(Self.aspect(wide) - 451.0 / 300) < 0.06, "box \(wide.box ?? [])")

        // The next tab: the tall image alone. A pixel left of the wide one would widen its box.
        let isTall = { (score: EmulatorSession.Similarity) in score.ssim > 0.85 && abs(Self.aspect(score) - 512.0 / 600) < 0.05 }
        try await session.press("Right")
        let tall = try await waitForPane(session, "tall", showing: Self.tall, until: isTall)
        #expect(tall.ssim > 0.85, "SSIM \(tall.ssim), box \(tall.box ?? []); keys read: \(keysRead)")
        #expect(abs(Self.aspect(tall) - 512.0 / 600) < 0.05, "leftovers around the new image: box \(tall.box ?? [])")
        #expect((tall.box?[2] ?? 0) < (wide.box?[2] ?? 0), "narrower than the wide one, as its aspect says")

        // The help panel takes the image away: only text is left in the pane; closing it brings it back.
        try await session.press("question")
        let help = try await waitForPane(session, "help", showing: Self.tall) { ($0.imageFraction ?? 1) < 0.01 }
        #expect(
            (help.imageFraction ?? 1) < 0.01, "pixels of an image under the help panel: \(help.imageFraction ?? 1); keys read: \(keysRead)")
        try await session.press("question")
        let back = try await waitForPane(session, "back", showing: Self.tall, until: isTall)
        #expect(isTall(back), "SSIM \(back.ssim), box \(back.box ?? []); keys read: \(keysRead)")

        // Quitting leaves nothing on the screen but the background.
        try await session.press("q")
        try await session.waitUntilDone(timeout: .seconds(20))
        try await session.repaint()
        let quit = try await EmulatorSession.similarity(of: try await session.screenshot("quit"), to: Self.tall)
        #expect(quit.box == nil, "left on the screen after quitting: \(quit.box ?? [])")
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        #expect(stderr.isEmpty, "\(stderr)")
    }

    @Test func xtermShowsSixelInThePaneAndLeavesNothingBehind() async throws {
        try await browse(in: .xterm)
    }

    @Test func kittyShowsItsImagesInThePaneAndDeletesThem() async throws {
        try await browse(in: .kitty)
    }

    @Test func mltermShowsITermImagesInThePaneAndLeavesNothingBehind() async throws {
        try await browse(in: .mlterm)
    }
}
