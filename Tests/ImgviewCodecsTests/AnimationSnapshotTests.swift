import Foundation
import ImgviewCodecs
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging

/// Every frame of an animated photograph, decoded and rendered as the preview shows it, against
/// committed text; IMGVIEW_RECORD_SNAPSHOTS=1 re-records them.
@Suite("Animation frame snapshots")
struct AnimationSnapshotTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    /// Each frame at 24×8 cells in 256-colour blocks and in ASCII, headed by its number and delay.
    static func renderFrames(of name: String) throws -> String {
        let options = [
            RenderOptions(columns: 24, rows: 8, mode: .blocks, colors: .twoFiftySix),
            RenderOptions(columns: 24, rows: 8, mode: .ascii, colors: .none),
        ]
        let bytes = try Fixtures.data(name)
        let decoder = ImageDecoder()
        let header = try decoder.inspect(bytes)
        let renderer = PreviewRenderer(options: options[0])
        let minimum = renderer.minimumDecodeSize(width: header.uprightSize.width, height: header.uprightSize.height)
        let image = try decoder.decode(bytes, header: header, request: DecodeRequest(minimumSize: minimum))
        let animation = try #require(image.animation)
        var text = "\(name): \(animation.frames.count) frames, loop count \(animation.loopCount)\n"
        for (index, frame) in animation.frames.enumerated() {
            text +=
                "--- frame \(index + 1), \(Int(frame.delay / .milliseconds(1))) ms, decoded at \(frame.pixels.width)×\(frame.pixels.height)\n"
            for option in options {
                text += AnsiPrinter().text(for: PreviewRenderer(options: option).render(frame.pixels))
            }
        }
        return text
    }

    @Test(arguments: ["slideshow.gif", "slideshow.webp", "slideshow.avif"])
    func everyFrameRendersAsRecorded(name: String) throws {
        let text = try Self.renderFrames(of: name)
        let file = Self.directory.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["IMGVIEW_RECORD_SNAPSHOTS"] == "1" {
            try Data(text.utf8).write(to: file)
            return
        }
        let recorded = try String(contentsOf: file, encoding: .utf8)
        #expect(text == recorded, "frames of \(name) differ from Snapshots/\(name).txt; re-record with IMGVIEW_RECORD_SNAPSHOTS=1")
    }

    @Test func theFramesOfOneAnimationDiffer() throws {
        // Three different photographs: a decoder that repeated its first frame would pass a snapshot recorded from it.
        let text = try Self.renderFrames(of: "slideshow.gif")
        let frames = text.components(separatedBy: "--- frame ").dropFirst().map { $0.drop { $0 != "\n" } }
        #expect(Set(frames).count == 3)
    }
}
