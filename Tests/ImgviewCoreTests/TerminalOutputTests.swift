import Foundation
import Testing

@testable import ImgviewImaging
@testable import ImgviewSupport

/// The one vocabulary of terminal output: each sequence spelled as the terminals document it,
/// and no other source file spelling one by hand.
@Suite("Terminal output")
struct TerminalOutputTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func cursorAndModesCountFromOneOnTheWire() {
        #expect(text(EscapeSequence.cursorPosition(row: 0, column: 0)) == "\u{1B}[1;1H")
        #expect(text(EscapeSequence.cursorPosition(row: 11, column: 204)) == "\u{1B}[12;205H")
        #expect(text(EscapeSequence.cursorUp(3) + EscapeSequence.cursorDown(12)) == "\u{1B}[3A\u{1B}[12B")
        #expect(
            text(EscapeSequence.saveCursor + EscapeSequence.restoreCursor + EscapeSequence.eraseToEndOfLine) == "\u{1B}7\u{1B}8\u{1B}[K")
        #expect(text(EscapeSequence.setMode(.cursorVisible) + EscapeSequence.resetMode(.synchronizedOutput)) == "\u{1B}[?25h\u{1B}[?2026l")
        #expect(text(EscapeSequence.requestMode(.synchronizedOutput)) == "\u{1B}[?2026$p")
    }

    @Test func sgrColoursAsXtermDocumentsThem() {
        #expect(text(SGR.reset) == "\u{1B}[0m")
        #expect(text(SGR.sequence([])) == "")
        #expect(
            text(SGR.sequence([.foreground(.default), .background(.default), .foreground(.palette(3)), .background(.palette(9))]))
                == "\u{1B}[39;49;33;101m")
        #expect(text(SGR.sequence([.reset, .bold, .dim, .underline, .reverse])) == "\u{1B}[0;1;2;4;7m")
        #expect(
            text(SGR.sequence([.foreground(.palette(244)), .background(.rgb(red: 1, green: 20, blue: 255))]))
                == "\u{1B}[38;5;244;48;2;1;20;255m")
        #expect(TerminalColor.rgb(RGBColor(red: 7, green: 8, blue: 9)).sgr == .rgb(red: 7, green: 8, blue: 9))
    }

    @Test func controlStringsAndTmuxPassthrough() {
        #expect(text(ControlString.apc.framed(Array("Ga=d".utf8))) == "\u{1B}_Ga=d\u{1B}\\")
        #expect(text(ControlString.osc.framed(Array("11;?".utf8))) == "\u{1B}]11;?\u{1B}\\")
        #expect(text(ControlString.osc.framed(Array("1337;x".utf8), endingWithBell: true)) == "\u{1B}]1337;x\u{07}")
        let inner = ControlString.apc.framed(Array("Ga=d".utf8))
        #expect(TerminalRoute.direct.wrap(inner) == inner)
        #expect(text(TerminalRoute.tmuxPassthrough.wrap(inner)) == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d\u{1B}\u{1B}\\\u{1B}\\")
    }

    /// Every escape written anywhere goes through `Sources/ImgviewSupport/TerminalOutput`: no other
    /// source file spells ESC, BEL or CSI itself.
    @Test func noOtherSourceFileSpellsAnEscape() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let vocabulary = sources.appendingPathComponent("ImgviewSupport/TerminalOutput").path
        let spellings = ["\\u{1B}", "\\u{1b}", "0x1B", "0x1b", "\\u{07}", "\\u{9B}", "\\u{9b}", "\\e["]
        var offenders: [String] = []
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        for case let path as String in files where path.hasSuffix(".swift") {
            let full = sources.appendingPathComponent(path).path
            guard !full.hasPrefix(vocabulary) else { continue }
            let source = try String(contentsOfFile: full, encoding: .utf8)
            if spellings.contains(where: source.contains) { offenders.append(path) }
        }
        #expect(offenders.isEmpty, "escape sequences spelled outside the vocabulary: \(offenders)")
    }

    /// Nor does any compose one from the vocabulary's parts: an introducer or a terminator is
    /// written only by the vocabulary (the input decoders compare bytes against them, which is reading).
    @Test func noOtherSourceFileComposesASequence() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let vocabulary = sources.appendingPathComponent("ImgviewSupport/TerminalOutput").path
        // The fuzz target builds hostile input for the key decoder, not output.
        let fuzzing = sources.appendingPathComponent("ImgviewFuzzing").path
        let compositions = [
            "ControlCode.csi +", "+ ControlCode.csi", "+= ControlCode.csi", "+ ControlCode.stringTerminator",
            "+= ControlCode.stringTerminator",
            "append(ControlCode.bell)",
            "append(ControlCode.escape)", "Array(\"tmux;\"",
        ]
        var offenders: [String] = []
        let files = try #require(FileManager.default.enumerator(atPath: sources.path))
        for case let path as String in files where path.hasSuffix(".swift") {
            let full = sources.appendingPathComponent(path).path
            guard !full.hasPrefix(vocabulary), !full.hasPrefix(fuzzing) else { continue }
            let source = try String(contentsOfFile: full, encoding: .utf8)
            if compositions.contains(where: source.contains) { offenders.append(path) }
        }
        #expect(offenders.isEmpty, "sequences composed outside the vocabulary: \(offenders)")
    }

    @Test func questionsAndClosingsAreSpelledOnce() {
        #expect(text(EscapeSequence.requestSecondaryDeviceAttributes) == "\u{1B}[>c")
        #expect(text(EscapeSequence.requestStatusReport) == "\u{1B}[5n")
        #expect(text(EscapeSequence.requestCursorPosition) == "\u{1B}[6n")
        #expect(text(ControlString.dcs.closing()) == "\u{1B}\\")
        #expect(text(ControlString.osc.closing(endingWithBell: true)) == "\u{07}")
        #expect(text(TerminalRoute.passthroughOpening) == "\u{1B}Ptmux;")
    }
}
