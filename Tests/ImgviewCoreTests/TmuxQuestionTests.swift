import ImgviewSupport
import Testing

@testable import ImgviewImaging
@testable import ImgviewTerminalDetection

@Suite("The terminal question inside tmux: tmux's own questions plain, the outer terminal's through passthrough")
struct TmuxQuestionTests {
    static let environment = ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color"]

    @Test func noAPCReachesTmuxAsText() {
        let plain = String(decoding: TerminalQuery.tmuxBytes, as: UTF8.self)
        #expect(!plain.contains("\u{1B}_"), "tmux would take an APC for the pane title")
        #expect(plain.hasSuffix("\u{1B}[c"), "tmux's DA1 ends its answers")
        // The outer questions: one passthrough packet, every ESC inside doubled, DSR last.
        let outer = TerminalQuery.outerBytes
        #expect(
            outer
                == TerminalRoute.tmuxPassthrough.wrap(
                    Array(
                        ("\u{1B}[>q\u{1B}[>c\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\"
                            + "\u{1B}_Gi=32,s=1,v=1,a=q,t=d,f=24,U=1;AAAA\u{1B}\\\u{1B}[5n").utf8)))
        #expect(String(decoding: outer, as: UTF8.self).hasSuffix("\u{1B}\u{1B}[5n\u{1B}\\"))
    }

    @Test func theOuterAnswersEndAtDSR() {
        let replies = TerminalDetectionTests.parse(
            Array("\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[>1;4000;26c\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[0n".utf8))
        #expect(replies.statusReported && replies.version == "kitty(0.26.5)" && replies.kittyGraphics == "OK")
        #expect(replies.secondaryAttributes == [1, 4000, 26] && replies.unclaimed.isEmpty)
        #expect(!TerminalDetectionTests.parse(Array("\u{1B}[3n".utf8)).statusReported)
    }

    final class ScriptedTerminal: TerminalChannel {
        var answers: [[UInt8]]
        var written: [[UInt8]] = []
        init(answers: [[UInt8]]) { self.answers = answers }
        func write(_ bytes: [UInt8]) -> Bool {
            written.append(bytes)
            return true
        }
        func read(timeout: Duration) -> [UInt8] {
            answers.isEmpty ? [] : answers.removeFirst()
        }
        func discardInput() {}
        func giveBack(_ bytes: [UInt8]) {}
    }

    @Test func theOuterQueryWaitsForDSRNotDA1() {
        let terminal = ScriptedTerminal(answers: [Array("\u{1B}P>|XTerm(379)\u{1B}\\".utf8), Array("\u{1B}[?63;4c\u{1B}[0n".utf8)])
        let outcome = TerminalQuery.run(on: terminal, bytes: TerminalQuery.outerBytes, timeout: .seconds(5))
        #expect(outcome.status == .answered && outcome.replies.version == "XTerm(379)" && outcome.replies.statusReported)
        #expect(terminal.written == [TerminalQuery.outerBytes])
    }

    @Test func theOuterAnswersNameTheTerminalAndItsSymbols() {
        let tmuxAnswer = Array("\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c".utf8)
        let outcome = TerminalQueryOutcome(replies: TerminalDetectionTests.parse(tmuxAnswer), elapsed: .milliseconds(2), status: .answered)
        let facts = TerminalDetector.TmuxFacts(
            version: "3.3a", clientTerminal: "xterm-256color", allowsPassthrough: true, answersReachPane: true)
        let kitty = TerminalDetector(
            environment: TerminalEnvironment(Self.environment), query: outcome, tmux: facts,
            outer: TerminalDetectionTests.parse(Array("\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[0n".utf8))
        ).profile()
        #expect(kitty.terminal == "kitty(0.26.5)" && kitty.terminalEvidence == "XTVERSION through tmux")
        #expect(kitty.autoMode == .kitty && kitty.symbols == .sextant)
        #expect(kitty.symbolsReason == "kitty(0.26.5) draws sextants itself (XTVERSION through tmux)")
        let vte = TerminalDetector(
            environment: TerminalEnvironment(Self.environment), query: outcome, tmux: facts,
            outer: TerminalDetectionTests.parse(Array("\u{1B}[>65;7600;1c\u{1B}[0n".utf8))
        ).profile()
        #expect(vte.symbols == .sextant && vte.symbolsReason.hasSuffix("(DA2 through tmux)"))
        let xterm = TerminalDetector(
            environment: TerminalEnvironment(Self.environment), query: outcome, tmux: facts,
            outer: TerminalDetectionTests.parse(Array("\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[>19;379;0c\u{1B}[0n".utf8))
        ).profile()
        #expect(xterm.terminal == "XTerm(379)" && xterm.symbols == .quad && xterm.autoMode == .blocks)
    }
}
