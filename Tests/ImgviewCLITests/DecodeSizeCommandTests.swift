import Foundation
import ImgviewTestSupport
import Testing

/// A large progressive JPEG previewed in a box of 100 columns: the blocks' decode is served by
/// libjpeg's 1/8 scale (its DC coefficients alone), not by 1/4, which needs every coefficient of
/// the file in memory at once (72 MB for 6000×4000).
@Suite("Decode size of text previews")
struct DecodeSizeCommandTests {
    @Test func aProgressivePhotoAtAHundredColumnsIsDecodedFromItsDCCoefficients() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("progressive-6000x4000.jpg")
        let script = """
            import sys
            from PIL import Image
            small = Image.radial_gradient("L").resize((600, 400)).convert("RGB")
            small.resize((6000, 4000), Image.BILINEAR).save(sys.argv[1], quality=85, progressive=True)
            """
        try SystemCommands.run("/usr/bin/env", ["python3", "-c", script, file.path])  // Pillow: scripts/install-numpy-pillow.sh
        for mode in ["blocks", "ascii"] {
            let result = try await DecoderMemoryCommandTests.measured(["show", file.path, "--size", "100x40", "--mode", mode])
            #expect(result.status == 0 && result.lines.isEmpty, "\(mode): exit \(result.status), \(result.lines)")
            #expect(result.stdout.split(separator: "\n").count == 33, "\(mode): 100 columns of a 3:2 photo are 33 rows")
            // 1/4 scale held about 110 MB at the peak in the debug binary; 1/8 holds about 40.
            #expect(result.peakKB < memoryBound(kilobytes: 64 * 1024), "\(mode): \(result.peakKB) KB at the peak")
        }
    }
}
