import Foundation
import ImgviewTestSupport
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
        #expect(replies.unclaimed == Array("ab\u{1B}[Ax".utf8), "the Esc key last is dropped")
    }

    @Test func errorsAndOddAnswersAreReadSafely() {
        let replies = Self.parse(Array("\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\\u{1B}]11;rgb:ff/80/0\u{07}\u{1B}[?1;3;0S\u{1B}[?1;2c".utf8))
        #expect(replies.kittyGraphics == "ENOTSUPPORTED:no")
        #expect(replies.background == RGBColor(red: 255, green: 128, blue: 0))
        #expect(replies.colorRegisters == nil, "status 3 is a failure")
        #expect(replies.deviceAttributes == [1, 2])
        #expect(TerminalReplyParser.colour("rgb:zz/00/00") == nil && TerminalReplyParser.colour("cmy:0/0/0") == nil)
    }

    /// A terminal that sends `pieces`, each at its time after the question, on a clock of the
    /// test's own: waiting costs no real time.
    final class FakeTerminal: TerminalChannel {
        let clock = ManualPlaybackClock()
        var pieces: [(at: Duration, bytes: [UInt8])]
        var written: [UInt8] = []
        var discarded = false
        var givenBack: [UInt8] = []
        var reads = 0

        init(_ pieces: [(at: Duration, bytes: [UInt8])]) {
            self.pieces = pieces
        }

        /// `answer` in two pieces at once, or nothing ever.
        convenience init(answer: [UInt8]?) {
            self.init(answer.map { [(.zero, Array($0.prefix(10))), (.zero, Array($0.dropFirst(10)))] } ?? [])
        }

        func write(_ bytes: [UInt8]) -> Bool {
            written += bytes
            return true
        }

        func read(timeout: Duration) -> [UInt8] {
            reads += 1
            let now = clock.now
            if let first = pieces.first, first.at <= now + timeout {
                pieces.removeFirst()
                if first.at > now { clock.advance(by: first.at - now) }
                return first.bytes
            }
            // Nothing within the timeout: it passes, as poll's would.
            clock.advance(by: timeout)
            return []
        }

        func discardInput() { discarded = true }
        func giveBack(_ bytes: [UInt8]) { givenBack += bytes }

        func run(timeout: Duration = TerminalQuery.defaultTimeout) -> TerminalQueryOutcome {
            TerminalQuery.run(on: self, timeout: timeout, clock: clock)
        }
    }

    @Test func theQueryEndsAtDA1() {
        let terminal = FakeTerminal([(.milliseconds(3), Self.xtermAnswer + Array("ls".utf8))])
        let outcome = terminal.run(timeout: .seconds(5))
        #expect(outcome.status == .answered && outcome.elapsed == .milliseconds(3))
        #expect(terminal.written == TerminalQuery.bytes)
        #expect(TerminalQuery.bytes.suffix(3) == Array("\u{1B}[c".utf8), "DA1 is asked last")
        // Keys typed meanwhile go back, and nothing is thrown away.
        #expect(terminal.givenBack == Array("ls".utf8) && !terminal.discarded)
    }

    @Test func aTerminalThatNeverAnswersCostsTheDeadlineAndNoMore() {
        let terminal = FakeTerminal(answer: nil)
        let outcome = terminal.run(timeout: .milliseconds(150))
        #expect(outcome.status == .timedOut && outcome.elapsed == .milliseconds(150))
        #expect(!terminal.discarded && terminal.givenBack.isEmpty)
        let profile = TerminalDetector(environment: TerminalEnvironment(["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"]), query: outcome)
            .profile()
        #expect(profile.autoMode == .blocks, "nothing answered: blocks, whatever the environment says")
        #expect(profile.autoReason.hasPrefix("the terminal did not answer within"))
    }

    /// Broken and hostile answers: each is read within the deadline (and the short grace for an
    /// answer under way), nothing of it is given back, and what is left of it in the terminal's
    /// input is thrown away rather than left for the shell.
    /// Each a list of (when, what) the terminal sends.
    static let brokenAnswers: [(label: String, pieces: [(at: Duration, bytes: [UInt8])])] = {
        let ms = { (value: Int) -> Duration in .milliseconds(value) }
        var answers: [(String, [(at: Duration, bytes: [UInt8])])] = []
        answers.append(("DA1 cut short", [(ms(2), Array("\u{1B}[?62;".utf8))]))
        answers.append(("an open DCS", [(ms(2), Array("\u{1B}P>|xterm(1)".utf8))]))
        answers.append(("an open OSC", [(ms(2), Array("\u{1B}]11;rgb:0000/".utf8))]))
        answers.append(("an open APC", [(ms(2), Array("\u{1B}_Gi=31;".utf8) + [UInt8](repeating: 0x41, count: 100_000))]))
        answers.append(("NULs", [(ms(2), [0, 0, 0, 0] + Array("\u{1B}[?62c".utf8))]))
        let trickled: [(at: Duration, bytes: [UInt8])] = Array("\u{1B}[?62;4c".utf8).enumerated().map {
            (ms(300 * ($0.offset + 1)), [$0.element])
        }
        answers.append(("a reply a byte every 300 ms", trickled))
        let junk: [(at: Duration, bytes: [UInt8])] = (0..<256).map { (ms($0), [UInt8](repeating: UInt8(ascii: "j"), count: 4096)) }
        answers.append(("a megabyte of junk", junk))
        answers.append(("an answer nobody asked for", [(ms(2), Array("\u{1B}[8;24;80t\u{1B}[?62c".utf8))]))
        return answers
    }()

    @Test(arguments: 0..<8)
    func brokenAnswersAreDroppedWithinTheDeadline(_ index: Int) {
        let (label, pieces) = Self.brokenAnswers[index]
        let terminal = FakeTerminal(pieces)
        let outcome = terminal.run()
        #expect(outcome.elapsed <= TerminalQuery.defaultTimeout + TerminalReplyReader.grace, "\(label)")
        #expect(outcome.discardsPendingInput && terminal.discarded, "\(label): the rest is dropped")
        #expect(terminal.givenBack.isEmpty && outcome.replies.unclaimed.isEmpty, "\(label): nothing goes to the shell")
        #expect(terminal.reads < 600, "\(label): \(terminal.reads) reads")
    }

    @Test func anAnswerUnderWayAtTheDeadlineIsWaitedForWhileItComes() {
        // A byte every 100 ms from 50 ms on: DA1 is still coming at the deadline, and is read whole.
        let trickled = Array("\u{1B}[?62;4c".utf8).enumerated().map {
            (at: Duration.milliseconds(50 + 100 * $0.offset), bytes: [$0.element])
        }
        let terminal = FakeTerminal(trickled)
        let outcome = terminal.run()
        #expect(outcome.status == .answered && !terminal.discarded && outcome.replies.deviceAttributes == [62, 4])
        #expect(outcome.elapsed == .milliseconds(750))
        // An answer that stops coming is given up a gap after its last byte.
        let stalled = FakeTerminal([(at: .milliseconds(390), bytes: Array("\u{1B}[?6".utf8))])
        let given = stalled.run()
        #expect(given.status == .timedOut && stalled.discarded)
        #expect(given.elapsed == TerminalQuery.defaultTimeout + TerminalReplyReader.gap)
        // And one that trickles on for ever, at the grace's end.
        let endless = FakeTerminal(
            [(at: .milliseconds(1), bytes: Array("\u{1B}]11;".utf8))] + (1...100).map { (at: .milliseconds(100 * $0), bytes: [0x30]) })
        #expect(endless.run().elapsed == TerminalQuery.defaultTimeout + TerminalReplyReader.grace)
    }

    @Test func cellSizesAreBoundedToWhatTerminalsHave() {
        #expect(Self.parse(Array("\u{1B}[6;60000;60000t".utf8)).cellPixels == CellPixelSize.largest)
        #expect(Self.parse(Array("\u{1B}[6;500;500t".utf8)).cellPixels == CellPixelSize(width: 128, height: 256))
        #expect(Self.parse(Array("\u{1B}[6;99999999999999999999;9t".utf8)).cellPixels == nil, "a number past any terminal's is refused")
        // The kernel's pixels (TIOCGWINSZ at 65535²) too.
        let kernel = Self.profile(Self.kittyAnswer, environment: ["TERM": "xterm-kitty"], kernel: (80, 24, 65535, 65535))
        #expect(kernel.cellPixels == CellPixelSize.largest)
        // And whatever the cell, a pixel preview stays within the limits.
        let layout = GraphicsLayout.fitting(
            width: 512, height: 600, columns: 1000, rows: 1000, cell: CellPixelSize(width: 60000, height: 60000))
        #expect(layout.pixelWidth * layout.pixelHeight <= GraphicsLayout.largestPixelCount)
        #expect(layout.pixelWidth <= GraphicsLayout.largestSide && layout.pixelHeight <= GraphicsLayout.largestSide)
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
        // Control characters inside an answer (an ESC there would end it, and the answer be dropped).
        let hostile = Array("\u{1B}P>|evil\u{07}]0;title\u{08}\u{1B}\\\u{1B}[?62;4c".utf8)
        let profile = Self.profile(hostile, environment: ["TERM": "xterm"])
        let object = try JSONSerialization.jsonObject(with: Data(profile.json.utf8)) as? [String: Any]
        #expect(object?["terminal"] as? String == "evil?]0;title?")
        #expect((object?["auto"] as? [String: Any])?["mode"] as? String == "sixel")
        #expect(
            object?.keys.sorted() == [
                "advice", "auto", "background", "cell_pixels", "color_registers", "colors", "evidence", "graphics", "kitty_placeholders",
                "modes", "multiplexer", "passthrough", "query", "ssh", "symbols", "synchronized_output", "terminal",
            ])
        #expect(!profile.report.contains("\u{1B}"))
    }
}
