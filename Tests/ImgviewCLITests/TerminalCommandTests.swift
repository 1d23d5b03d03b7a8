import Foundation
import Testing

@Suite("imgview terminal, run as a process")
struct TerminalCommandTests {
    /// The JSON object in `output` (which may also hold the query a pseudo-terminal echoed).
    static func report(in output: String) throws -> [String: Any] {
        guard let start = output.range(of: "{\"terminal\"") else { throw HarnessError("no report in \(output.debugDescription)") }
        let json = output[start.lowerBound...].prefix { $0 != "\n" && $0 != "\r" }
        return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
    }

    @Test func withoutAControllingTerminalNothingIsAsked() async throws {
        // setsid: a new session with no controlling terminal, as under cron or CI.
        let result = try await ImgviewProcess.run(["--help"])
        #expect(result.stdout.contains("terminal"), "listed among the subcommands")
        let setsid = try await EmulatorSession.run("/usr/bin/setsid", ["-w", ImgviewProcess.binary.path, "terminal", "--json"])
        #expect(setsid.status == 0)
        let report = try Self.report(in: setsid.output)
        #expect((report["query"] as? [String: Any])?["status"] as? String == "not sent")
        #expect((report["query"] as? [String: Any])?["reason"] as? String == "no controlling terminal")
        #expect(setsid.output.hasPrefix("{"), "no escape sequence was written anywhere")
    }

    @Test func aTerminalThatNeverAnswersCostsOnlyTheDeadline() async throws {
        // `script` gives imgview a pseudo-terminal whose other side only copies to a pipe: the query
        // goes out and nothing ever answers.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = "\(TmuxSession.shellQuoted(ImgviewProcess.binary.path)) terminal --json --timeout 300"
        process.arguments = ["-qfec", command, "/dev/null"]
        var environment = ImgviewProcess.environment(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1", "COLORTERM": "truecolor"])
        environment["TMUX"] = nil
        process.environment = environment
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let started = ContinuousClock.now
        try process.run()
        let data = await readToEnd(output)
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - started
        try? input.fileHandleForWriting.close()
        #expect(process.terminationStatus == 0)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\u{1B}[c"), "the query went out, DA1 last")
        let report = try Self.report(in: text)
        let query = report["query"] as? [String: Any]
        #expect(query?["status"] as? String == "timed out")
        let milliseconds = query?["milliseconds"] as? Double ?? 0
        #expect(milliseconds >= 300 && milliseconds < 450, "waited \(milliseconds) ms for a 300 ms deadline")
        #expect(elapsed < .seconds(3))
        #expect((report["auto"] as? [String: Any])?["mode"] as? String == "blocks", "the environment says kitty, but nothing answered")
    }

    @Test func theTextReportSaysWhy() async throws {
        let result = try await EmulatorSession.run("/usr/bin/setsid", ["-w", ImgviewProcess.binary.path, "terminal"])
        #expect(result.status == 0)
        #expect(result.output.contains("auto "))
        #expect(result.output.contains("query         not sent (no controlling terminal)"))
    }
}
