import Foundation
import ImgviewTestSupport
import Testing

/// Pixel previews full screen of the photos a phone or camera makes (a 24 MP progressive JPEG, a
/// 12 MP HEIC and JPEG XL) stay under 100 MB at the peak in each protocol, measured on the binary
/// users run: `scripts/test.sh` runs this suite with `IMGVIEW_BIN` set to `make release`'s. A debug
/// binary holds some 15 MB more of its own (its unoptimised code keeps more alive), so the bound
/// would measure the build, not the decoders; without `IMGVIEW_BIN` the suite does not run.
@Suite("Pixel previews of large photos, in the binary users run", .enabled(if: ProcessInfo.processInfo.environment["IMGVIEW_BIN"] != nil))
struct PixelMemoryReleaseTests {
    static let photos = ["jpeg-progressive-6000x4000.jpg", "heic-12mp-photo.heic", "jxl-12mp-photo.jxl"]

    /// What each protocol's output starts with.
    static let protocols = ["kitty": "\u{1B}_G", "sixel": "\u{1B}P", "iterm": "\u{1B}]1337;File="]

    @Test(arguments: photos)
    func aFullScreenPixelPreviewStaysUnderAHundredMegabytes(name: String) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try HostileImages.memoryImage(name, in: folder)
        for (mode, start) in Self.protocols.sorted(by: { $0.key < $1.key }) {
            let result = try await DecoderMemoryCommandTests.measured(["show", "--mode", mode, "--size", "240x67", file.path])
            #expect(result.status == 0 && result.lines.isEmpty, "\(name) \(mode): exit \(result.status), \(result.lines)")
            #expect(result.stdout.hasPrefix(start), "\(name): a \(mode) preview")
            #expect(result.peakKB < memoryBound(kilobytes: 100 * 1024), "\(name) \(mode): \(result.peakKB) KB at the peak")
        }
    }
}
