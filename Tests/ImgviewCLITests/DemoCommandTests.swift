import Foundation
import Testing

/// `imgview demo`: the bundled images over loopback, through the whole pipeline.
@Suite("imgview demo")
struct DemoCommandTests {
    @Test func fetchesEveryBundledImageOverLoopbackThenFromMemory() async throws {
        let result = try await ImgviewProcess.run(["demo"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("imgview demo: 6 images served at http://127.0.0.1:") == true)
        #expect(lines.filter { $0.hasPrefix("first ") && $0.contains(" network ") }.count == 6)
        #expect(lines.filter { $0.hasPrefix("second ") && $0.contains(" memory cache ") }.count == 6)
        #expect(result.stdout.contains("The server saw 6 image requests for 12 fetches"))
    }
}
