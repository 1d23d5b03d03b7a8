import Foundation
import Testing

/// The terminal question inside tmux: tmux takes any APC for a pane title, so the kitty graphics
/// query must never reach it as text; an explicit pixel mode is wrapped for passthrough.
@Suite("The terminal question inside tmux")
struct TmuxQueryTests {
    static let image = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/03_chelsea_cat.png").path

    /// Runs `command` in a pane titled `kept`, waits for it to end; returns the pane's title then, and its text.
    func run(_ command: String) async throws -> (title: String, screen: String) {
        let session = try await TmuxSession(
            columns: 100, rows: 30, command: "tmux set -g allow-passthrough on; tmux select-pane -T kept; " + command)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let screen = try await session.screen()
            if screen.contains("EXIT=") {
                let title = try await session.format("#{pane_title}")
                await session.kill()
                return (title, screen)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await session.kill()
        throw HarnessError("the command did not finish in tmux")
    }

    @Test func thePaneTitleIsLeftAlone() async throws {
        let commands = [
            TmuxSession.imgviewCommand(["terminal", "--json"]),
            TmuxSession.imgviewCommand(["show", Self.image, "--size", "20x6"]),
            TmuxSession.imgviewCommand(["show", Self.image, "--size", "20x6", "--mode", "ascii"]),
        ]
        let (title, screen) = try await run(commands.joined(separator: "; "))
        #expect(title == "kept", "\(screen)")
        #expect(screen.contains("\"multiplexer\": \"tmux"), "\(screen)")
    }

    @Test func anExplicitPixelModeIsWrappedForPassthrough() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("output.bin")
        // `script` gives show a terminal of its own inside the pane, with a size in pixels set, so
        // nothing needs asking of the terminal; its output is kept.
        let show = TmuxSession.imgviewCommand(["show", Self.image, "--size", "20x6", "--mode", "sixel"])
        let (_, screen) = try await run(
            "stty cols 100 rows 30; script -qfec \(TmuxSession.shellQuoted(show)) \(TmuxSession.shellQuoted(output.path)) > /dev/null")
        let bytes = try String(decoding: Data(contentsOf: output), as: UTF8.self)
        #expect(bytes.contains("\u{1B}Ptmux;\u{1B}\u{1B}P"), "sixel wrapped for tmux: \(screen)")
    }
}
