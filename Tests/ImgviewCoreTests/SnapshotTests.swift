import Foundation
import Testing

@testable import ImgviewImaging

/// Compares the renderer's text with committed files; set IMGVIEW_RECORD_SNAPSHOTS=1 to re-record them.
@Suite("Renderer snapshots")
struct SnapshotTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    /// A synthetic 96×64 picture with smooth and sharp features: a colour gradient, a bright disc, a dark bar.
    static let picture: PixelBuffer = {
        let (width, height) = (96, 64)
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x - 60), dy = Double(y - 30)
                var rgb = (UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), UInt8(128))
                if dx * dx + dy * dy < 18 * 18 { rgb = (250, 240, 200) }
                if x >= 10 && x < 22 && y >= 8 { rgb = (20, 20, 40) }
                bytes += [rgb.0, rgb.1, rgb.2, 255]
            }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }()

    func assertSnapshot(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = Self.directory.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["IMGVIEW_RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "snapshot \(name) differs; re-record with IMGVIEW_RECORD_SNAPSHOTS=1", sourceLocation: sourceLocation)
    }

    func render(_ mode: RenderMode, _ colors: ColorMode, columns: Int = 40, rows: Int = 12) -> String {
        let options = RenderOptions(columns: columns, rows: rows, mode: mode, colors: colors)
        return AnsiPrinter().text(for: PreviewRenderer(options: options).render(Self.picture))
    }

    @Test func asciiWithoutColour() throws {
        let text = render(.ascii, .none)
        #expect(text.split(separator: "\n").count == 12)
        try assertSnapshot(text, named: "ascii-none-40x12")
    }

    @Test func asciiWith16Colours() throws {
        try assertSnapshot(render(.ascii, .sixteen), named: "ascii-16-40x12")
    }

    @Test func blocksWithoutColour() throws {
        try assertSnapshot(render(.blocks, .none), named: "blocks-none-40x12")
    }

    @Test func blocksWith256Colours() throws {
        try assertSnapshot(render(.blocks, .twoFiftySix), named: "blocks-256-40x12")
    }

    @Test func blocksInTruecolor() throws {
        try assertSnapshot(render(.blocks, .full), named: "blocks-full-40x12")
    }

    @Test func narrowBoxKeepsTheAspect() throws {
        let text = render(.ascii, .none, columns: 20, rows: 40)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 7 && lines.allSatisfy { $0.count == 20 })
        try assertSnapshot(text, named: "ascii-none-20x40")
    }
}
