import Foundation
import ImgviewCodecs
import ImgviewFetching
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging
@testable import ImgviewPipeline

/// What the pipeline hands `show` and the browser for an animated image: every frame rendered
/// for the box and mode, with its delay and the loop count, against committed text;
/// IMGVIEW_RECORD_SNAPSHOTS=1 re-records them.
@Suite("Rendered animation snapshots")
struct RenderedAnimationSnapshotTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func response(for name: String, options: RenderOptions) async throws -> PreviewResponse {
        let pipeline = ImagePipeline(
            configuration: .init(fetcher: ImageFetcher.localFiles, decoder: ImageDecoder()))
        return try await pipeline.preview(for: PreviewRequest(url: Fixtures.url(name), options: options))
    }

    /// The preview's frames in blocks and in ASCII, each headed by its number and delay.
    static func renderedFrames(of name: String) async throws -> String {
        var text = ""
        for options in [
            RenderOptions(columns: 24, rows: 8, mode: .blocks, colors: .twoFiftySix),
            RenderOptions(columns: 24, rows: 8, mode: .ascii, colors: .none),
        ] {
            let response = try await response(for: name, options: options)
            let animation = try #require(response.preview.animation)
            #expect(animation.frames[0].grid == response.preview.grid, "the first frame is the still preview")
            text += "\(name) as \(options.mode.rawValue): \(animation.frames.count) frames, loop count \(animation.loopCount)\n"
            for (index, frame) in animation.frames.enumerated() {
                text += "--- frame \(index + 1), \(Int(frame.delay / .milliseconds(1))) ms\n"
                text += AnsiPrinter().text(for: frame.grid)
            }
        }
        return text
    }

    @Test(arguments: ["slideshow.gif", "dispose.gif", "slideshow.webp"])
    func everyRenderedFrameIsAsRecorded(name: String) async throws {
        let text = try await Self.renderedFrames(of: name)
        let file = Self.directory.appendingPathComponent("rendered-" + name + ".txt")
        if ProcessInfo.processInfo.environment["IMGVIEW_RECORD_SNAPSHOTS"] == "1" {
            try Data(text.utf8).write(to: file)
            return
        }
        let recorded = try String(contentsOf: file, encoding: .utf8)
        #expect(text == recorded, "frames of \(name) differ from Snapshots/rendered-\(name).txt; re-record with IMGVIEW_RECORD_SNAPSHOTS=1")
    }

    @Test func pixelFramesAreEncodedEachAndShareOneBlankGrid() async throws {
        let options = RenderOptions(
            columns: 24, rows: 8, mode: .blocks, colors: .full,
            graphics: GraphicsOptions(graphics: .kitty, columns: 24, rows: 8))
        let response = try await Self.response(for: "slideshow.gif", options: options)
        let frames = try #require(response.preview.animation?.frames)
        #expect(frames.count == 3)
        #expect(frames.map(\.delay) == [.milliseconds(500), .milliseconds(500), .milliseconds(500)])
        let encoded = frames.compactMap(\.graphics?.bytes)
        #expect(encoded.count == 3 && Set(encoded).count == 3)
        #expect(frames.allSatisfy { $0.grid == response.preview.grid && $0.grid.cells.allSatisfy { $0.character == " " } })
    }

    @Test func outputThatCannotPlayGetsTheFirstFrameOnly() async throws {
        let options = RenderOptions(columns: 24, rows: 8, mode: .ascii, colors: .none)
        var still = options
        still.animates = false
        let first = try await Self.response(for: "slideshow.gif", options: still)
        #expect(first.preview.animation == nil)
        #expect(first.preview.grid == (try await Self.response(for: "slideshow.gif", options: options)).preview.grid)
    }

    @Test func anAnimationOverTheCostLimitIsCutShortWithAWarning() async throws {
        let pipeline = ImagePipeline(
            configuration: .init(
                fetcher: ImageFetcher.localFiles, decoder: ImageDecoder(),
                animationCostLimit: 1))
        let response = try await pipeline.preview(
            for: PreviewRequest(
                url: Fixtures.url("slideshow.gif"), options: RenderOptions(columns: 24, rows: 8, mode: .ascii, colors: .none)))
        // Only the first frame fits: a still, with the reason.
        #expect(response.preview.animation == nil)
        #expect(response.warning?.contains("animation cut short after 1 of 3 frames") == true)
    }
}
