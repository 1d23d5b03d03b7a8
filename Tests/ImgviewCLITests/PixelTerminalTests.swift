import Foundation
import ImgviewCodecs
import ImgviewSupport
import Testing

@testable import ImgviewImaging
@testable import ImgviewTerminalDetection

/// Real terminal emulators under Xvfb: what `auto` finds in each, and the pixel encoders' output
/// drawn by the terminals themselves, screenshot and compared with the source image.
@Suite("Pixels in real terminal emulators (Xvfb)", .serialized)
struct PixelTerminalTests {
    static let source = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/03_chelsea_cat.png")

    /// The escape sequence that draws the source in `mode`, scaled for a box of cells.
    static func sequence(_ mode: PreviewMode, columns: Int = 40, rows: Int = 14, cell: CellPixelSize) throws -> [UInt8] {
        let decoded = try ImageDecoder().decode(try Data(contentsOf: source), request: DecodeRequest())
        let layout = GraphicsLayout.fitting(
            width: decoded.pixels.width, height: decoded.pixels.height, columns: columns, rows: rows, cell: cell)
        let image = RGBImage(
            scaling: decoded.pixels, toWidth: layout.pixelWidth, height: layout.pixelHeight, background: RGBColor(red: 0, green: 0, blue: 0)
        )
        switch mode {
        case .sixel: return SixelEncoder().encode(image)
        case .kitty: return KittyGraphicsEncoder().display(.png(try PNGEncoder().png(image)), id: 1)
        case .iterm: return ITermImageEncoder().display(png: try PNGEncoder().png(image), layout: layout)
        case .blocks, .ascii: throw HarnessError("not a pixel mode")
        }
    }

    struct TerminalReport: Decodable {
        struct Auto: Decodable { let mode: String }
        struct Query: Decodable {
            let status: String
            let milliseconds: Double?
        }
        let auto: Auto
        let query: Query
        let modes: [String]
    }

    /// Runs `imgview terminal --json`, then `imgview show` of the source in a 40×14 box (`--mode`
    /// when `mode` is given, else auto) in `emulator`; returns what `terminal` said and how closely
    /// the screenshot shows the source.
    func show(
        _ mode: PreviewMode?, in emulator: EmulatorSession.Emulator, file: URL = source, named tag: String? = nil,
        reference: URL? = nil
    ) async throws -> (TerminalReport, EmulatorSession.Similarity) {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("terminal.json")
        let binary = TmuxSession.shellQuoted(ImgviewProcess.binary.path)
        let command = [
            "\(binary) terminal --json > \(TmuxSession.shellQuoted(report.path))", "printf '\\033[?25l'",
            "\(binary) show \(TmuxSession.shellQuoted(file.path)) --size 40x14" + (mode.map { " --mode \($0.rawValue)" } ?? ""),
        ].joined(separator: "; ")
        let session = try await EmulatorSession(emulator, command: command)
        defer { session.stop() }
        try await session.waitUntilDone()
        let name = "show-\(tag.map { $0 + "-" } ?? "")\(mode?.rawValue ?? "auto")-\(emulator)"
        let shot = try await session.screenshot(name)
        let similarity = try await EmulatorSession.similarity(of: shot, to: reference ?? file)
        try await EmulatorSession.record(shot, as: name, crop: similarity.box)
        let terminal = try JSONDecoder().decode(TerminalReport.self, from: Data(contentsOf: report))
        return (terminal, similarity)
    }

    @Test func xtermAsAVT340ShowsSixelAndAutoPicksIt() async throws {
        let (terminal, similarity) = try await show(nil, in: .xterm)
        #expect(terminal.auto.mode == "sixel" && terminal.query.status == "answered")
        #expect((terminal.query.milliseconds ?? 9999) < 1000)
        #expect(similarity.ssim > 0.85, "SSIM \(similarity.ssim), box \(similarity.box ?? [])")
        #expect(similarity.colourError < 12, "colour error \(similarity.colourError)")
    }

    @Test func mltermShowsITermImagesAndSixelAndAutoPicksITerm() async throws {
        let (terminal, iterm) = try await show(nil, in: .mlterm)
        #expect(terminal.auto.mode == "iterm" && terminal.modes.starts(with: ["iterm", "sixel"]))
        #expect((terminal.query.milliseconds ?? 9999) < 1000)
        #expect(iterm.ssim > 0.85, "SSIM \(iterm.ssim), box \(iterm.box ?? [])")
        let (_, sixel) = try await show(.sixel, in: .mlterm)
        #expect(sixel.ssim > 0.85, "SSIM \(sixel.ssim), box \(sixel.box ?? [])")
    }

    @Test func kittyShowsItsProtocolAndAutoPicksIt() async throws {
        let (terminal, similarity) = try await show(nil, in: .kitty)
        #expect(terminal.auto.mode == "kitty" && terminal.query.status == "answered")
        #expect((terminal.query.milliseconds ?? 9999) < 1000)
        #expect(similarity.ssim > 0.85, "SSIM \(similarity.ssim), box \(similarity.box ?? [])")
        #expect(similarity.colourError < 12, "colour error \(similarity.colourError)")
    }

    /// The new formats draw in pixels like the others: the cat as HEIC in kitty, as JPEG XL in
    /// xterm's sixel, and an SVG drawn for the box (compared with librsvg's own drawing of it).
    @Test func heicJPEGXLAndSVGShowInPixels() async throws {
        let fixtures = ImgviewProcess.repositoryRoot.appendingPathComponent("Tests/ImgviewCodecsTests/Fixtures")
        let (_, heic) = try await show(
            .kitty, in: .kitty, file: fixtures.appendingPathComponent("cat.heic"), named: "heic", reference: Self.source)
        #expect(heic.ssim > 0.8, "SSIM \(heic.ssim), box \(heic.box ?? [])")
        #expect(heic.colourError < 14, "colour error \(heic.colourError)")
        let (_, jxl) = try await show(
            .sixel, in: .xterm, file: fixtures.appendingPathComponent("cat.jxl"), named: "jxl", reference: Self.source)
        #expect(jxl.ssim > 0.8, "SSIM \(jxl.ssim), box \(jxl.box ?? [])")
        // 120×30 of text, drawn at the box's 40 columns of pixels: as sharp as librsvg's own drawing at that size.
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reference = folder.appendingPathComponent("text.png")
        let drawn = try await ImgviewProcess.run(
            ["-w", "960", fixtures.appendingPathComponent("text.svg").path, "-o", reference.path],
            executable: URL(fileURLWithPath: "/usr/bin/rsvg-convert"))
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let (_, svg) = try await show(
            .kitty, in: .kitty, file: fixtures.appendingPathComponent("text.svg"), named: "svg", reference: reference)
        #expect(svg.ssim > 0.8, "SSIM \(svg.ssim), box \(svg.box ?? [])")
    }

    @Test func explicitModesAreObeyedOnAnyTerminal() async throws {
        // xterm draws sixel when asked, whatever auto would say; blocks are text, no pixels.
        let (_, sixel) = try await show(.sixel, in: .xterm)
        #expect(sixel.ssim > 0.85, "SSIM \(sixel.ssim)")
        let (_, blocks) = try await show(.blocks, in: .xterm)
        #expect(blocks.ssim < sixel.ssim, "blocks \(blocks.ssim) against sixel \(sixel.ssim)")
    }

    @Test func kittyDeletesAnImageByItsId() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { TmuxSession.shellQuoted(folder.appendingPathComponent(name).path) }
        try Data(try Self.sequence(.kitty, cell: CellPixelSize(width: 9, height: 18))).write(to: folder.appendingPathComponent("image.bin"))
        try Data(KittyGraphicsEncoder().delete(id: 1)).write(to: folder.appendingPathComponent("delete.bin"))
        // Draw, wait for the test's go-ahead, then delete image 1 by its id.
        let command = [
            "\(TmuxSession.shellQuoted(ImgviewProcess.binary.path)) terminal --json > \(path("terminal.json"))", "printf '\\033[?25l'",
            "cat \(path("image.bin"))", "touch \(path("drawn"))", "while [ ! -f \(path("go")) ]; do sleep 0.1; done",
            "cat \(path("delete.bin"))",
        ].joined(separator: "; ")
        let session = try await EmulatorSession(.kitty, command: command)
        defer { session.stop() }
        try await session.waitUntilDone(marker: folder.appendingPathComponent("drawn"))
        let drawn = try await EmulatorSession.similarity(of: try await session.screenshot("kitty-drawn"), to: Self.source)
        #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent("go").path, contents: nil))
        try await session.waitUntilDone()
        let deleted = try await EmulatorSession.similarity(of: try await session.screenshot("kitty-deleted"), to: Self.source)

        let terminal = try JSONDecoder().decode(TerminalReport.self, from: Data(contentsOf: folder.appendingPathComponent("terminal.json")))
        #expect(terminal.auto.mode == "kitty" && terminal.query.status == "answered")
        #expect((terminal.query.milliseconds ?? 9999) < 1000)
        #expect(drawn.ssim > 0.85, "SSIM \(drawn.ssim), box \(drawn.box ?? [])")
        #expect(drawn.colourError < 12, "colour error \(drawn.colourError)")
        #expect(deleted.box == nil, "nothing but the background is left: \(deleted.box ?? [])")
    }

    /// Runs `imgview terminal --json` inside tmux inside mlterm, then (when `draw`) the iTerm2
    /// sequence wrapped for tmux's passthrough; returns the report and the screenshot's score.
    func insideTmux(passthrough: Bool, draw: Bool) async throws -> ([String: Any], EmulatorSession.Similarity?) {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = "imgview-pixels-\(UUID().uuidString.prefix(8))"
        let report = folder.appendingPathComponent("terminal.json")
        let marker = folder.appendingPathComponent("drawn")
        let image = folder.appendingPathComponent("image.bin")
        var sequence = try Self.sequence(.iterm, cell: CellPixelSize(width: 10, height: 19))
        sequence = TerminalRoute.tmuxPassthrough.wrap(sequence)
        try Data(sequence).write(to: image)
        let script = folder.appendingPathComponent("inside.sh")
        try """
        tmux set -g allow-passthrough \(passthrough ? "on" : "off")
        \(TmuxSession.shellQuoted(ImgviewProcess.binary.path)) terminal --json > \(TmuxSession.shellQuoted(report.path))
        printf '\\033[?25l'
        \(draw ? "cat \(TmuxSession.shellQuoted(image.path))" : "")
        touch \(TmuxSession.shellQuoted(marker.path))
        sleep 60
        """.write(to: script, atomically: true, encoding: .utf8)
        let command = "tmux -L \(socket) -f /dev/null new-session 'tmux set -g status off; sh \(script.path)'"
        let session = try await EmulatorSession(.mlterm, command: command)
        defer {
            // The tmux server first: it holds a descriptor Foundation watches for mlterm's exit.
            let killServer = Process()
            killServer.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
            killServer.arguments = ["-L", socket, "kill-server"]
            try? killServer.run()
            killServer.waitUntilExit()
            session.stop()
        }
        try await session.waitUntilDone(marker: marker)
        var similarity: EmulatorSession.Similarity?
        if draw {
            let shot = try await session.screenshot("tmux-iterm")
            similarity = try await EmulatorSession.similarity(of: shot, to: Self.source)
            try await EmulatorSession.record(shot, as: "encoder-iterm-mlterm-tmux", crop: similarity?.box)
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
        return (object, similarity)
    }

    @Test func insideTmuxWithPassthroughImagesGetThroughToTheTerminal() async throws {
        let (report, similarity) = try await insideTmux(passthrough: true, draw: true)
        #expect((report["auto"] as? [String: Any])?["mode"] as? String == "iterm")
        #expect(report["passthrough"] as? Bool == true && (report["multiplexer"] as? String ?? "").hasPrefix("tmux"))
        let score = try #require(similarity)
        #expect(score.ssim > 0.85, "SSIM \(score.ssim), box \(score.box ?? [])")
    }

    @Test func insideTmuxWithoutPassthroughItIsBlocksAndTheAdviceSaysWhatToSet() async throws {
        let (report, _) = try await insideTmux(passthrough: false, draw: false)
        #expect((report["auto"] as? [String: Any])?["mode"] as? String == "blocks")
        #expect((report["advice"] as? [String])?.first?.contains("set -g allow-passthrough on") == true)
    }
}
