import Foundation
import ImgviewTestSupport
import Testing

/// imgview under a pty whose "terminal" answers the detection query badly
/// (`Terminals/hostile_terminal.py`): cut-short and unterminated answers, NULs, a trickle, a
/// megabyte of junk, cells of absurd size. Each is read within the deadline, nothing of it is
/// echoed or left in the terminal's input for the shell, and nothing the terminal says makes a
/// preview large.
@Suite("A hostile terminal under a pty")
struct HostileTerminalTests {
    struct Run: Decodable {
        let status: Int
        let seconds: Double
        let output: String
        let left: String
        let answered: Bool
        let afterTyping: Double?
        let peakKB: Int

        enum CodingKeys: String, CodingKey {
            case status, seconds, output, left, answered
            case afterTyping = "after_typing"
            case peakKB = "peak_kb"
        }

        var outputBytes: [UInt8] {
            let digits = Array(output.utf8).map { $0 <= UInt8(ascii: "9") ? $0 - UInt8(ascii: "0") : $0 - UInt8(ascii: "a") + 10 }
            return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
        }
        var outputText: String { String(decoding: outputBytes, as: UTF8.self) }
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Terminals/hostile_terminal.py")
    static let photo = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg").path

    /// Runs imgview with `arguments` as the pty's program, the terminal playing `scenario`.
    func run(
        _ scenario: String, _ arguments: [String], pixels: (Int, Int) = (0, 0), typing keys: String? = nil
    ) async throws -> Run {
        let cache = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }
        var command = ["python3", Self.script.path, scenario, "100", "30", "\(pixels.0)", "\(pixels.1)"]
        if let keys { command += ["--type", keys] }
        command += ["--", "env", "TERM=xterm-256color", "IMGVIEW_CACHE_DIR=\(cache.path)", ImgviewProcess.binary.path] + arguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.environment = ImgviewProcess.environment([:])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = await readToEnd(output)
        try await offPool { process.waitUntilExit() }
        return try JSONDecoder().decode(Run.self, from: data)
    }

    @Test(arguments: ["da1-cut-short", "open-dcs", "open-osc", "open-apc", "nuls", "trickled", "junk"])
    func brokenAnswersAreNeitherEchoedNorLeftForTheShell(_ scenario: String) async throws {
        let result = try await run(scenario, ["show", Self.photo, "--size", "40x10"])
        #expect(result.answered, "\(scenario): the query was asked")
        #expect(result.status == 0, "\(scenario)")
        let left = result.left.prefix(80)
        #expect(left.isEmpty, "\(scenario): left in the terminal's input")
        let echoed = result.outputText.contains("JUNKJUNK")
        #expect(!echoed, "\(scenario): the junk was echoed")
        let printed = result.outputText.contains("▀") || result.outputText.contains("\u{1B}P")
        #expect(printed, "\(scenario): the preview was printed")
        // Generous: the query waits 400 ms at most, plus a grace only for an answer that keeps coming.
        #expect(result.seconds < 15, "\(scenario): \(result.seconds) s")
    }

    /// Whether the kernel lets a program put bytes into its terminal's input (TIOCSTI): Linux 6.2
    /// and later can forbid it (`dev.tty.legacy_tiocsti = 0`), and then typeahead is lost, as
    /// every program that reads the terminal loses it.
    static var kernelAllowsTIOCSTI: Bool {
        guard let setting = try? String(contentsOfFile: "/proc/sys/dev/tty/legacy_tiocsti", encoding: .utf8) else { return true }
        return setting.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    @Test(.enabled(if: kernelAllowsTIOCSTI, "the kernel forbids TIOCSTI (dev.tty.legacy_tiocsti = 0)"))
    func keysTypedDuringTheQueryReachTheShellUnechoed() async throws {
        let result = try await run("typed-keys", ["show", Self.photo, "--size", "40x10"])
        #expect(result.left == Array("ls-l".utf8).map { String(format: "%02x", $0) }.joined())
        let echoed = result.outputText.contains("ls-l")
        #expect(!echoed, "not echoed while imgview runs")
    }

    /// Cells of 60000×60000 and 500×500 pixels from `CSI 16 t`, and 65535² pixels from TIOCGWINSZ:
    /// a sixel preview all the same, within the limits.
    @Test(arguments: ["huge-cell", "large-cell", "kernel"])
    func absurdCellSizesStayWithinTheLimits(_ scenario: String) async throws {
        let result = try await run(
            scenario == "kernel" ? "honest" : scenario, ["show", Self.photo], pixels: scenario == "kernel" ? (65535, 65535) : (0, 0))
        #expect(result.status == 0, "\(scenario)")
        let text = result.outputText
        let sixel = text.contains("\u{1B}P0;1;0q")
        #expect(sixel, "\(scenario): a sixel preview")
        // The picture is drawn with at most the photo's own 512×600 pixels.
        guard let raster = text.range(of: "\"1;1;")?.upperBound else {
            Issue.record("\(scenario): no raster attributes (status \(result.status))")
            return
        }
        let size = text[raster...].prefix { $0 != "#" }.split(separator: ";").compactMap { Int($0) }
        #expect(size.count == 2 && size[0] <= 512 && size[1] <= 600, "\(scenario): \(size)")
        #expect(result.peakKB < memoryBound(kilobytes: 300_000), "\(scenario): \(result.peakKB) kB at the peak")
    }

    /// A megabyte of junk while the browser starts: it opens, and `q` quits it at once.
    @Test func theBrowserQuitsAtOnceAfterAFlood() async throws {
        let result = try await run("junk", [Self.photo], typing: "q")
        #expect(result.status == 0)
        let echoed = result.outputText.contains("JUNKJUNK")
        #expect(result.left.isEmpty && !echoed)
        let afterTyping = try #require(result.afterTyping)
        #expect(afterTyping < 5, "q took \(afterTyping) s")
    }
}
