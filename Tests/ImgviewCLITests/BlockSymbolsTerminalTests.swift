import Foundation
import Testing

/// Colour blocks drawn by real terminals under Xvfb: xterm draws characters from its font (here
/// DejaVu Sans Mono, which has halves and quadrants but no sextants), kitty draws sextants itself.
@Suite("Block symbols in real terminal emulators (Xvfb)", .serialized)
struct BlockSymbolsTerminalTests {
    static let photo = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg")

    struct Report: Decodable {
        struct Symbols: Decodable {
            let set: String
            let reason: String
        }
        let symbols: Symbols
    }

    /// Runs `imgview terminal --json`, then `imgview show` of the photo in blocks (with `arguments`)
    /// through `script`, so that its output is both drawn and kept; returns the report, the output
    /// and the screenshot's score.
    func show(
        in emulator: EmulatorSession.Emulator, size: String, arguments: [String] = [], name: String
    ) async throws -> (Report, String, EmulatorSession.Similarity) {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("terminal.json")
        let output = folder.appendingPathComponent("output.txt")
        let binary = TmuxSession.shellQuoted(ImgviewProcess.binary.path)
        let show = ([binary, "show", TmuxSession.shellQuoted(Self.photo.path), "--mode", "blocks", "--size", size] + arguments)
            .joined(separator: " ")
        // `script` gives `show` a terminal of its own (so it asks, and draws) and copies what it wrote to a file.
        let command = [
            "\(binary) terminal --json > \(TmuxSession.shellQuoted(report.path))", "printf '\\033[?25l'",
            "script -qfec \(TmuxSession.shellQuoted(show)) \(TmuxSession.shellQuoted(output.path))",
        ].joined(separator: "; ")
        let session = try await EmulatorSession(emulator, command: command)
        defer { session.stop() }
        try await session.waitUntilDone()
        let shot = try await session.screenshot(name)
        let similarity = try await EmulatorSession.similarity(of: shot, to: Self.photo)
        try await EmulatorSession.record(shot, as: name, crop: similarity.box)
        let terminal = try JSONDecoder().decode(Report.self, from: Data(contentsOf: report))
        return (terminal, try String(contentsOf: output, encoding: .utf8), similarity)
    }

    static func hasSextants(_ output: String) -> Bool {
        output.unicodeScalars.contains { (0x1FB00...0x1FB3B).contains($0.value) }
    }

    @Test func xtermWithDejaVuSansMonoShowsTheDefaultBlocksRecognisably() async throws {
        let (terminal, output, quad) = try await show(
            in: .xterm, size: "98x28", arguments: ["--colors", "full"], name: "blocks-quad-xterm")
        #expect(terminal.symbols.set == "quad", "\(terminal.symbols.reason)")
        #expect(!Self.hasSextants(output) && output.contains("▀"))
        #expect(quad.ssim >= 0.6, "SSIM \(quad.ssim), box \(quad.box ?? [])")
        // The sextants asked for in the same font: characters it lacks, drawn as replacement glyphs.
        let (_, sextantOutput, sextant) = try await show(
            in: .xterm, size: "98x28", arguments: ["--colors", "full", "--symbols", "sextant"], name: "blocks-sextant-xterm")
        #expect(Self.hasSextants(sextantOutput))
        #expect(sextant.ssim < quad.ssim, "sextants \(sextant.ssim) against quadrants \(quad.ssim)")
    }

    @Test func kittyDrawsSextantsItselfAndGetsThem() async throws {
        let (terminal, output, similarity) = try await show(in: .kitty, size: "98x28", name: "blocks-sextant-kitty")
        #expect(terminal.symbols.set == "sextant" && terminal.symbols.reason.hasPrefix("kitty("), "\(terminal.symbols.reason)")
        #expect(Self.hasSextants(output), "show asked kitty and drew sextants")
        #expect(similarity.ssim >= 0.6, "SSIM \(similarity.ssim), box \(similarity.box ?? [])")
    }

    @Test func insideTmuxKittyIsAskedThroughPassthroughAndThePaneTitleIsKept() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = "imgview-symbols-\(UUID().uuidString.prefix(8))"
        let report = folder.appendingPathComponent("terminal.json")
        let title = folder.appendingPathComponent("title.txt")
        let marker = folder.appendingPathComponent("done")
        let script = folder.appendingPathComponent("inside.sh")
        let binary = TmuxSession.shellQuoted(ImgviewProcess.binary.path)
        try """
        tmux set -g allow-passthrough on
        tmux select-pane -T kept
        \(binary) terminal --json > \(TmuxSession.shellQuoted(report.path))
        \(binary) show \(TmuxSession.shellQuoted(Self.photo.path)) --mode blocks --size 20x6 > /dev/null
        tmux display -p -t "$TMUX_PANE" '#{pane_title}' > \(TmuxSession.shellQuoted(title.path))
        touch \(TmuxSession.shellQuoted(marker.path))
        sleep 60
        """.write(to: script, atomically: true, encoding: .utf8)
        let session = try await EmulatorSession(.kitty, command: "tmux -L \(socket) -f /dev/null new-session 'sh \(script.path)'")
        defer {
            let killServer = Process()
            killServer.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
            killServer.arguments = ["-L", socket, "kill-server"]
            try? killServer.run()
            killServer.waitUntilExit()
            session.stop()
        }
        try await session.waitUntilDone(marker: marker, settle: .milliseconds(200))
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
        #expect(object["terminal"] as? String == "kitty(0.26.5)" || (object["terminal"] as? String ?? "").hasPrefix("kitty("))
        #expect(object["evidence"] as? String == "XTVERSION through tmux", "\(object)")
        #expect((object["symbols"] as? [String: Any])?["set"] as? String == "sextant", "\(object)")
        let kept = try String(contentsOf: title, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(kept == "kept", "tmux's pane title after imgview: \(kept)")
    }
}
