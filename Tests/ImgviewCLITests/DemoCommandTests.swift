import Foundation
import Testing

/// `imgview demo`: the bundled images over loopback, through the whole pipeline.
@Suite("imgview demo")
struct DemoCommandTests {
    @Test func fetchesEveryBundledImageOverLoopbackThenFromMemory() async throws {
        let result = try await ImgviewProcess.run(["demo"], environment: ["TERM": "dumb", "COLORTERM": ""])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("imgview demo: 6 images served at http://127.0.0.1:") == true)
        #expect(lines.filter { $0.hasPrefix("first ") && $0.contains(" network ") }.count == 6)
        #expect(lines.filter { $0.hasPrefix("second ") && $0.contains(" memory cache ") }.count == 6)
        #expect(result.stdout.contains("The server saw 6 image requests for 12 fetches"))
        // Then a preview of each: without a terminal or colour variables, ASCII in the default box.
        #expect(lines.contains("hopper — Grace Hopper (US Navy, public domain)"))
        let preview = lines.drop { $0 != "hopper — Grace Hopper (US Navy, public domain)" }.dropFirst().prefix { !$0.contains(" — ") }
        #expect(preview.count > 5 && preview.count <= 14)
        #expect(preview.allSatisfy { $0.count <= 48 && !$0.contains("\u{1B}") })
    }

    /// `demo --report | head -1`: the reader goes, the next write ends the process by SIGPIPE, and
    /// the throwaway cache goes with it (it was left in the temporary folder).
    @Test func aReaderThatGoesLeavesNoTemporaryFolder() async throws {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        // No cache named: the demo makes a throwaway one in the temporary folder.
        let command = "unset IMGVIEW_CACHE_DIR; \(TmuxSession.shellQuoted(ImgviewProcess.binary.path)) demo --report | head -1"
        // The shell waits for both sides of the pipe: when it returns, imgview has ended.
        let result = try await ImgviewProcess.run(
            ["-c", command], executable: URL(fileURLWithPath: "/bin/sh"), environment: ["TMPDIR": temporary.path, "TERM": "dumb"])
        #expect(result.stdout.hasPrefix("imgview demo: 6 images served at"), "\(result.stdout)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("imgview-demo-") }
        #expect(left.isEmpty)
    }
}
