import Foundation
import ImgviewCodecs
import ImgviewCore
import Testing

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

    /// Runs `imgview terminal --json`, then draws `mode`'s sequence in `emulator`; returns what
    /// `terminal` said and how closely the screenshot shows the source.
    func draw(
        _ mode: PreviewMode, in emulator: EmulatorSession.Emulator, cell: CellPixelSize
    ) async throws
        -> (TerminalReport, EmulatorSession.Similarity)
    {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = folder.appendingPathComponent("image.bin")
        try Data(try Self.sequence(mode, cell: cell)).write(to: image)
        let report = folder.appendingPathComponent("terminal.json")
        let command = [
            "\(TmuxSession.shellQuoted(ImgviewProcess.binary.path)) terminal --json > \(TmuxSession.shellQuoted(report.path))",
            "printf '\\033[?25l'", "cat \(TmuxSession.shellQuoted(image.path))",
        ].joined(separator: "; ")
        let session = try await EmulatorSession(emulator, command: command)
        defer { session.stop() }
        try await session.waitUntilDone()
        let shot = try await session.screenshot("\(emulator)-\(mode)")
        let similarity = try await EmulatorSession.similarity(of: shot, to: Self.source)
        try await EmulatorSession.record(shot, as: "encoder-\(mode)-\(emulator)", crop: similarity.box)
        let terminal = try JSONDecoder().decode(TerminalReport.self, from: Data(contentsOf: report))
        return (terminal, similarity)
    }

    @Test func xtermAsAVT340DrawsSixelAndAutoPicksIt() async throws {
        let (terminal, similarity) = try await draw(.sixel, in: .xterm, cell: CellPixelSize(width: 9, height: 19))
        #expect(terminal.auto.mode == "sixel" && terminal.query.status == "answered")
        #expect((terminal.query.milliseconds ?? 9999) < 1000)
        #expect(similarity.ssim > 0.85, "SSIM \(similarity.ssim), box \(similarity.box ?? [])")
        #expect(similarity.colourError < 12, "colour error \(similarity.colourError)")
    }

    @Test func mltermDrawsITermImagesAndSixelAndAutoPicksITerm() async throws {
        let cell = CellPixelSize(width: 10, height: 19)
        let (terminal, iterm) = try await draw(.iterm, in: .mlterm, cell: cell)
        #expect(terminal.auto.mode == "iterm" && terminal.modes.starts(with: ["iterm", "sixel"]))
        #expect((terminal.query.milliseconds ?? 9999) < 1000)
        #expect(iterm.ssim > 0.85, "SSIM \(iterm.ssim), box \(iterm.box ?? [])")
        let (_, sixel) = try await draw(.sixel, in: .mlterm, cell: cell)
        #expect(sixel.ssim > 0.85, "SSIM \(sixel.ssim), box \(sixel.box ?? [])")
    }

    @Test func kittyDrawsItsProtocolAndAutoPicksIt() async throws {
        let (terminal, similarity) = try await draw(.kitty, in: .kitty, cell: CellPixelSize(width: 9, height: 18))
        #expect(terminal.auto.mode == "kitty" && terminal.query.status == "answered")
        #expect((terminal.query.milliseconds ?? 9999) < 1000)
        #expect(similarity.ssim > 0.85, "SSIM \(similarity.ssim), box \(similarity.box ?? [])")
        #expect(similarity.colourError < 12, "colour error \(similarity.colourError)")
    }
}
