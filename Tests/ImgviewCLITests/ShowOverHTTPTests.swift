import Foundation
import ImgviewServer
import ImgviewSupport
import ImgviewTestSupport
import Testing

/// `show` and `info` with http URLs and catalog names, against the loopback server.
@Suite("show and info over HTTP")
struct ShowOverHTTPTests {
    @Test func showsAnImageFetchedOverHTTP() async throws {
        let server = try await LoopbackServer.start()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photo.png")))
        server.publish(.data(bytes, contentType: "text/plain"), at: "/photo")
        let url = server.url(for: "/photo").absoluteString
        let shown = try await ImgviewProcess.run(["show", url, "--size", "20x5", "--colors", "none"])
        #expect(shown.status == 0 && !shown.stdout.isEmpty, "the format comes from the bytes, not the content type")
        let info = try await ImgviewProcess.run(["info", url, "--json"])
        // `show` fetched it through the pipeline, so `info` finds it in the disk cache.
        #expect(info.status == 0 && info.stdout.contains(#""origin":"disk""#), "\(info.stdout)")
        #expect(server.requests(for: "/photo").count == 1)
        let missing = try await ImgviewProcess.run(["show", server.url(for: "/nothing.jpg").absoluteString])
        #expect(missing.status == 4 && missing.stderr.contains("HTTP 404"))
        server.publish(.data(bytes, contentType: "image/png"), at: "/broken", faults: [.status(500)])
        #expect(try await ImgviewProcess.run(["show", server.url(for: "/broken").absoluteString]).status == 6)
        server.publish(.data(Data("<html></html>".utf8), contentType: "image/jpeg"), at: "/page.jpg")
        let page = try await ImgviewProcess.run(["show", server.url(for: "/page.jpg").absoluteString])
        #expect(page.status == 7 && page.stderr.contains("not an image"))
        // Shown once, the image is cached: --offline shows it; an image never fetched is a miss.
        #expect(try await ImgviewProcess.run(["show", url, "--offline", "--size", "20x5"]).status == 0)
        #expect(try await ImgviewProcess.run(["show", server.url(for: "/never.png").absoluteString, "--offline"]).status == 10)
        await server.stop()
    }

    @Test func refusedConnectionIsANetworkError() async throws {
        let result = try await ImgviewProcess.run(["show", "http://127.0.0.1:9/a.jpg"])
        #expect(result.status == 5)
        #expect(result.stderr.hasPrefix("imgview: http://127.0.0.1:9/a.jpg: "))
    }
}

/// `show` and `info` on a terminal say on stderr what a slow image is doing: nothing for a fast
/// one, how much has come after a second, and that a transfer stalled.
@Suite("Waiting for an image")
struct WaitingFeedbackTests {
    /// Runs `imgview arguments` under `script` (stdout and stderr on a pseudo-terminal, copied to a
    /// pipe); `whileRunning` gets what was printed so far.
    static func runOnTerminal(
        _ arguments: [String], whileRunning: @Sendable (@escaping @Sendable () -> String) async throws -> Void = { _ in }
    ) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([ImgviewProcess.binary.path] + arguments).map(TmuxSession.shellQuoted).joined(separator: " ")
        process.arguments = ["-qfec", command, "/dev/null"]
        process.environment = ImgviewProcess.environment([:])
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let printed = Locked(Data())
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.withLock { $0.append(data) }
        }
        try process.run()
        let text: @Sendable () -> String = { String(decoding: printed.withLock { $0 }, as: UTF8.self) }
        try await whileRunning(text)
        try await offPool { process.waitUntilExit() }
        output.fileHandleForReading.readabilityHandler = nil
        printed.withLock { $0.append(output.fileHandleForReading.readDataToEndOfFile()) }
        try? input.fileHandleForWriting.close()
        return (process.terminationStatus, text())
    }

    @Test(arguments: ["show", "info"])
    func aStalledTransferIsSaidThenTheImageComes(command: String) async throws {
        let server = try await LoopbackServer.start()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photo.png")))
        let gate = BodyGate()
        server.publish(
            .data(bytes, contentType: "image/png"), at: "/slow.png",
            faults: [.held(after: 1000, until: gate, chunkSize: 1000, delayPerChunk: .zero)])
        let url = server.url(for: "/slow.png").absoluteString
        let arguments = command == "show" ? ["show", url, "--size", "20x5", "--mode", "ascii"] : ["info", url]
        let result = try await Self.runOnTerminal(arguments) { printed in
            try await eventually(timeout: .seconds(30)) { printed().contains("stalled: nothing for") }
            #expect(printed().contains("/slow.png: 0 B of 36 kB (0%)"), "after a second, how much came of how much")
            gate.open()
        }
        await server.stop()
        #expect(result.status == 0, "\(result.output)")
        // The line was erased before the result: after the last line drawn (which may say all had
        // come, when the decode took more than a tick), `\r\e[K`, then the image.
        #expect(result.output.contains("stalled: nothing for"))
        let lastLine = try #require(result.output.range(of: "/slow.png: ", options: .backwards))
        let erased = try #require(result.output[lastLine.upperBound...].range(of: "\r\u{1B}[K"))
        let tail = result.output[erased.upperBound...]
        // The preview's characters, whatever colours the terminal was found to have.
        let plain = String(tail).replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        #expect(command == "show" ? plain.filter { ".:!|".contains($0) }.count >= 20 : tail.contains("PNG"), "\(tail)")
    }

    /// A cached image, or a fast one, prints nothing on stderr.
    @Test func aFastImagePrintsNoWaitingLine() async throws {
        let server = try await LoopbackServer.start()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photo.png")))
        server.publish(.data(bytes, contentType: "image/png"), at: "/fast.png")
        let result = try await Self.runOnTerminal(["info", server.url(for: "/fast.png").absoluteString])
        await server.stop()
        #expect(result.status == 0)
        #expect(!result.output.contains("\u{1B}[K"), "\(result.output)")
    }
}
