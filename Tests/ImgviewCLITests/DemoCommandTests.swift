import Foundation
import ImgviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    /// `imgview demo --report | head`: the reader goes away early, and the throwaway cache folder
    /// goes with the process all the same, as it does when a signal ends it.
    @Test(arguments: ["pipe", "signal"])
    func theThrowawayCacheGoesOnEveryExitPath(_ ending: String) async throws {
        let temporary = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        // No cache folder named: the demo makes a throwaway one in TMPDIR.
        var environment = ImgviewProcess.environment(["TERM": "dumb", "TMPDIR": temporary.path])
        environment["IMGVIEW_CACHE_DIR"] = nil
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.environment = environment
        let binary = TmuxSession.shellQuoted(ImgviewProcess.binary.path)
        process.arguments = ["-c", ending == "pipe" ? "\(binary) demo --report | head -1" : "exec \(binary) demo --report"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        async let printed = readToEnd(output)
        if ending == "signal" {
            // Once the demo has its cache folder, a request to end.
            try await eventually { ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).count == 1 }
            kill(process.processIdentifier, SIGTERM)
        }
        let text = String(decoding: await printed, as: UTF8.self)
        try await offPool { process.waitUntilExit() }
        if ending == "pipe" { #expect(text.hasPrefix("imgview demo: 6 images served at")) }
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left.isEmpty, "left behind after \(ending): \(left)")
    }
}
