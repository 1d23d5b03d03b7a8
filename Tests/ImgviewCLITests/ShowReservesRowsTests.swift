import Foundation
import Testing

/// `show` of a pixel image on a terminal: its rows are reserved, so the prompt comes after the
/// image, in a plain terminal and in tmux, where the image goes past tmux and tmux's cursor does
/// not move by itself.
@Suite("show reserves an image's rows")
struct ShowReservesRowsTests {
    static let image = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/03_chelsea_cat.png").path

    @Test(arguments: ["sixel", "kitty", "iterm"])
    func onATerminalTheRowsComeFirstAndTheCursorEndsBelow(mode: String) async throws {
        // 40×8 cells of 10×20 pixels: the wide cat is 8 rows high.
        let result = try await ImgviewProcess.runOnTerminal(["show", Self.image, "--mode", mode, "--size", "40x8"], columns: 80)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(String(repeating: "\n", count: 8) + "\u{1B}[8A\u{1B}7"))
        #expect(result.stdout.hasSuffix("\u{1B}8\u{1B}[8B\r"))
        // Into a pipe, the image and a new line, no cursor movement.
        let piped = try await ImgviewProcess.run(["show", Self.image, "--mode", mode, "--size", "40x8"])
        #expect(!piped.stdout.hasPrefix("\n") && piped.stdout.hasSuffix("\n") && !piped.stdout.contains("\u{1B}7"))
    }

    /// Prints `before`, shows the cat in `mode` inside tmux (passthrough on), then `AFTER`; `lead`
    /// blank lines first. Returns the pane's lines.
    func inTmux(mode: String, lead: Int) async throws -> [String] {
        let show = TmuxSession.imgviewCommand(["show", Self.image, "--mode", mode, "--size", "40x8"])
        let command = "tmux set -g allow-passthrough on; printf '\\n%.0s' $(seq \(lead)); echo before; \(show); echo AFTER"
        let session = try await TmuxSession(columns: 100, rows: 30, command: command)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let screen = try await session.screen()
            if screen.contains("EXIT=") {
                await session.kill()
                return screen.components(separatedBy: "\n")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await session.kill()
        throw HarnessError("show did not finish in tmux")
    }

    @Test(arguments: ["kitty", "sixel", "iterm"])
    func inTmuxThePromptComesAfterTheImage(mode: String) async throws {
        for lead in [0, 40] {
            let lines = try await inTmux(mode: mode, lead: lead)
            let before = try #require(lines.lastIndex { $0 == "before" }, "\(lines)")
            let after = try #require(lines.lastIndex { $0 == "AFTER" }, "\(lines)")
            #expect(after - before == 9, "\(mode), \(lead) lines first: the 8 rows of the image between: \(lines)")
        }
    }
}
