import Foundation
import Testing

@testable import ImgviewImaging
@testable import ImgviewTerminalDetection

@Suite("Terminal detection: replies, environment, the query's deadline")
struct TerminalDetectionTests {
    /// What kitty 0.26.5, xterm -ti vt340 and mlterm 3.9.0 answered to `TerminalQuery.bytes` under Xvfb.
    static let kittyAnswer = Array(
        "\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;18;9t\u{1B}[4;594;792t\u{1B}[?2026;2$y\u{1B}]11;rgb:0000/0000/0000\u{1B}\\\u{1B}[?62;c"
            .utf8)
    static let xtermAnswer = Array(
        "\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[6;19;9t\u{1B}[4;456;720t\u{1B}[?2026;0$y\u{1B}[?1;0;1024S\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;16;22;28c"
            .utf8)
    static let mltermAnswer = Array(
        "\u{1B}[6;19;10t\u{1B}[4;456;800t\u{1B}[?2026;0$y\u{1B}[?1;0;1024S\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?63;1;2;3;4;6;7;15;18;22;29c"
            .utf8)

    static func parse(_ bytes: [UInt8]) -> TerminalReplies {
        var parser = TerminalReplyParser()
        parser.consume(bytes)
        return parser.finish()
    }

    @Test func readsEveryAnswerKitty() {
        let replies = Self.parse(Self.kittyAnswer)
        #expect(replies.version == "kitty(0.26.5)")
        #expect(replies.kittyGraphics == "OK")
        #expect(replies.cellPixels == CellPixelSize(width: 9, height: 18))
        #expect(replies.textAreaPixels?.width == 792 && replies.textAreaPixels?.height == 594)
        #expect(replies.hasSynchronizedOutput)
        #expect(replies.background == RGBColor(red: 0, green: 0, blue: 0))
        #expect(replies.deviceAttributes == [62])
        #expect(replies.unclaimed.isEmpty)
    }

    @Test func readsEveryAnswerXterm() {
        let replies = Self.parse(Self.xtermAnswer)
        #expect(replies.version == "XTerm(379)" && replies.kittyGraphics == nil)
        #expect(replies.colorRegisters == 1024 && !replies.hasSynchronizedOutput)
        #expect(replies.background == RGBColor(red: 255, green: 255, blue: 255))
        #expect(replies.deviceAttributes?.contains(4) == true)
    }

    @Test func keysTypedDuringTheQueryAreKeptInOrder() {
        // "ab", an arrow key, then the answer cut in three pieces, an Esc key at the end.
        var parser = TerminalReplyParser()
        let answer = Self.kittyAnswer
        parser.consume(Array("ab\u{1B}[A".utf8) + answer[0..<5])
        parser.consume(Array(answer[5..<40]))
        #expect(!parser.replies.isComplete)
        parser.consume(Array(answer[40...]) + Array("x\u{1B}".utf8))
        let replies = parser.finish()
        #expect(replies.isComplete && replies.version == "kitty(0.26.5)")
        #expect(replies.unclaimed == Array("ab\u{1B}[Ax\u{1B}".utf8))
    }

    @Test func errorsAndOddAnswersAreReadSafely() {
        let replies = Self.parse(Array("\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\\u{1B}]11;rgb:ff/80/0\u{07}\u{1B}[?1;3;0S\u{1B}[?1;2c".utf8))
        #expect(replies.kittyGraphics == "ENOTSUPPORTED:no")
        #expect(replies.background == RGBColor(red: 255, green: 128, blue: 0))
        #expect(replies.colorRegisters == nil, "status 3 is a failure")
        #expect(replies.deviceAttributes == [1, 2])
        #expect(TerminalReplyParser.colour("rgb:zz/00/00") == nil && TerminalReplyParser.colour("cmy:0/0/0") == nil)
    }

    /// A terminal that answers `answer` (in two pieces), or never.
    final class FakeTerminal: TerminalChannel {
        var pieces: [[UInt8]]
        var written: [UInt8] = []
        init(answer: [UInt8]?) {
            pieces = answer.map { [Array($0.prefix(10)), Array($0.dropFirst(10))] } ?? []
        }
        func write(_ bytes: [UInt8]) -> Bool {
            written += bytes
            return true
        }
        func read(before deadline: ContinuousClock.Instant) -> [UInt8] {
            if !pieces.isEmpty { return pieces.removeFirst() }
            // Nothing more: wait out the deadline, as poll would.
            Thread.sleep(forTimeInterval: max(0, Double(ContinuousClock.now.duration(to: deadline).components.attoseconds) / 1e18))
            return []
        }
    }

    @Test func theQueryEndsAtDA1() {
        let terminal = FakeTerminal(answer: Self.xtermAnswer)
        let outcome = TerminalQuery.run(on: terminal, timeout: .seconds(5))
        #expect(outcome.status == .answered && outcome.elapsed < .seconds(1))
        #expect(terminal.written == TerminalQuery.bytes)
        #expect(TerminalQuery.bytes.suffix(3) == Array("\u{1B}[c".utf8), "DA1 is asked last")
    }

    @Test func aTerminalThatNeverAnswersCostsTheDeadlineAndNoMore() {
        let outcome = TerminalQuery.run(on: FakeTerminal(answer: nil), timeout: .milliseconds(150))
        #expect(outcome.status == .timedOut)
        #expect(outcome.elapsed >= .milliseconds(150) && outcome.elapsed < .milliseconds(600))
        let profile = TerminalDetector(environment: TerminalEnvironment(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"]), query: outcome)
            .profile()
        #expect(profile.autoMode == .blocks, "nothing answered: blocks, whatever the environment says")
        #expect(profile.autoReason.hasPrefix("the terminal did not answer within"))
    }

    static func profile(
        _ answer: [UInt8], environment: [String: String] = [:], tmux: TerminalDetector.TmuxFacts? = nil,
        kernel: (Int, Int, Int, Int)? = nil
    ) -> TerminalProfile {
        let outcome = TerminalQueryOutcome(replies: parse(answer), elapsed: .milliseconds(3), status: .answered)
        return TerminalDetector(environment: TerminalEnvironment(environment), query: outcome, kernelSize: kernel, tmux: tmux).profile()
    }

    @Test func autoPicksTheBestProtocolEachTerminalAnswersFor() {
        let kitty = Self.profile(Self.kittyAnswer, environment: ["TERM": "xterm-kitty"], kernel: (80, 24, 720, 432))
        #expect(kitty.autoMode == .kitty && kitty.availableGraphics == [.kitty])
        #expect(kitty.cellPixels == CellPixelSize(width: 9, height: 18) && kitty.cellPixelsSource == "TIOCGWINSZ")
        #expect(kitty.synchronizedOutput && kitty.colors == .full)
        let xterm = Self.profile(Self.xtermAnswer, environment: ["TERM": "xterm", "XTERM_VERSION": "XTerm(379)"])
        #expect(xterm.autoMode == .sixel && xterm.cellPixels == CellPixelSize(width: 9, height: 19) && xterm.cellPixelsSource == "CSI 16 t")
        #expect(xterm.colorRegisters == 1024 && xterm.colors == .sixteen)
        let mlterm = Self.profile(Self.mltermAnswer, environment: ["TERM": "mlterm", "MLTERM": "3.9.0"])
        #expect(mlterm.availableGraphics == [.iterm, .sixel] && mlterm.autoMode == .iterm)
        #expect(mlterm.availableModes == [.iterm, .sixel, .blocks, .ascii])
        // xterm without -ti vt340: DA1 without 4, so text.
        let plain = Self.profile(Array("\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?1;2c".utf8), environment: ["TERM": "xterm-256color"])
        #expect(plain.autoMode == .blocks && plain.availableGraphics.isEmpty && plain.colors == .twoFiftySix)
    }

    @Test func answersOutweighTheEnvironment() {
        // Variables say kitty (inherited), the answer says otherwise: the answer wins.
        let profile = Self.profile(Self.xtermAnswer, environment: ["KITTY_WINDOW_ID": "3", "TERM": "xterm"])
        #expect(profile.terminal == "XTerm(379)" && profile.autoMode == .sixel)
    }

    @Test func overSSHOnlyAnswersAndLCTerminalCount() {
        let answer = Array("\u{1B}[?62;c".utf8)
        let remote = Self.profile(answer, environment: ["TERM_PROGRAM": "WezTerm", "SSH_CONNECTION": "1 2 3 4", "TERM": "xterm-256color"])
        #expect(remote.autoMode == .blocks && remote.isRemote)
        let iterm = Self.profile(answer, environment: ["LC_TERMINAL": "iTerm2", "SSH_TTY": "/dev/pts/1", "TERM": "xterm-256color"])
        #expect(iterm.autoMode == .iterm)
    }

    @Test func insideTmuxPassthroughDecidesAndTheAdviceSaysHow() {
        let tmuxAnswer = Array("\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c".utf8)
        let environment = ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color", "TERM_PROGRAM": "tmux"]
        let off = Self.profile(
            tmuxAnswer, environment: environment,
            tmux: .init(version: "3.3a", clientTerminal: "WezTerm 20240203", allowsPassthrough: false))
        #expect(off.autoMode == .blocks && off.multiplexer == "tmux 3.3a" && !off.passthrough)
        #expect(off.advice.contains { $0.contains("set -g allow-passthrough on") })
        #expect(off.graphics.first { $0.graphics == .iterm }?.reason.contains("allow-passthrough is off") == true)
        let on = Self.profile(
            tmuxAnswer, environment: environment, tmux: .init(version: "3.3a", clientTerminal: "kitty(0.35.2)", allowsPassthrough: true))
        #expect(on.autoMode == .kitty && on.passthrough && on.advice.isEmpty && !on.synchronizedOutput)
        let unknown = Self.profile(
            tmuxAnswer, environment: environment, tmux: .init(version: "3.3a", clientTerminal: nil, allowsPassthrough: true))
        #expect(unknown.autoMode == .blocks)
    }

    @Test func withoutATerminalNothingIsAskedAndTextIsChosen() {
        let profile = TerminalDetector(
            environment: TerminalEnvironment(["TERM": "dumb"]), query: nil, noQueryReason: "no controlling terminal"
        )
        .profile()
        #expect(profile.autoMode == .ascii && profile.query.status == "not sent")
        #expect(profile.cellPixels == .fallback)
    }

    @Test func theReportIsOneSafeObjectOfJSON() throws {
        let hostile = Array("\u{1B}P>|evil\u{1B}]0;title\u{07}\u{1B}\\\u{1B}[?62;4c".utf8)
        let profile = Self.profile(hostile, environment: ["TERM": "xterm"])
        let object = try JSONSerialization.jsonObject(with: Data(profile.json.utf8)) as? [String: Any]
        #expect(object?["terminal"] as? String == "evil?]0;title?")
        #expect((object?["auto"] as? [String: Any])?["mode"] as? String == "sixel")
        #expect(
            object?.keys.sorted() == [
                "advice", "auto", "background", "cell_pixels", "color_registers", "colors", "evidence", "graphics", "modes", "multiplexer",
                "passthrough", "query", "ssh", "symbols", "synchronized_output", "terminal",
            ])
        #expect(!profile.report.contains("\u{1B}"))
    }
}
