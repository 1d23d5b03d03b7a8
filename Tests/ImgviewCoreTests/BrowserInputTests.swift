import Foundation
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging

/// Keys and mouse reports put together from the key stream (unknown sequences dropped), what a click or the wheel means where it lands,
/// finding tabs by name and typing tab numbers.
@Suite("Browser input")
struct BrowserInputTests {
    func keys(_ text: String) -> [BrowserKey] {
        text.map { $0 == "\u{1B}" ? .escape : .character($0) }
    }

    func decode(_ reads: [String]) -> [BrowserKeyDecoder.Output] {
        var decoder = BrowserKeyDecoder()
        var outputs: [BrowserKeyDecoder.Output] = []
        for read in reads {
            for key in keys(read) { outputs += decoder.feed(key) }
            outputs += decoder.endOfInput()
        }
        return outputs
    }

    @Test func sgrReportsBecomeMouseEvents() {
        #expect(decode(["\u{1B}[<0;30;1M"]) == [.mouse(MouseEvent(.press(button: 0), column: 29, row: 0))])
        #expect(decode(["\u{1B}[<0;30;1m"]) == [.mouse(MouseEvent(.release(button: 0), column: 29, row: 0))])
        #expect(
            decode(["\u{1B}[<64;5;9M\u{1B}[<65;5;9M"]) == [
                .mouse(MouseEvent(.wheelUp, column: 4, row: 8)), .mouse(MouseEvent(.wheelDown, column: 4, row: 8)),
            ])
        #expect(decode(["\u{1B}[<32;7;2M"]) == [.mouse(MouseEvent(.drag(button: 0), column: 6, row: 1))])
        // Columns past 223, which the old X10 encoding cannot report.
        #expect(decode(["\u{1B}[<2;300;60M"]) == [.mouse(MouseEvent(.press(button: 2), column: 299, row: 59))])
        // A report split across two reads.
        #expect(
            decode(["q\u{1B}[<0;1", "2;3Mx"]) == [
                .key(.character("q")), .mouse(MouseEvent(.press(button: 0), column: 11, row: 2)), .key(.character("x")),
            ])
        #expect(decode(["\u{1B}\u{1B}[<0;1;1M"]) == [.key(.escape), .mouse(MouseEvent(.press(button: 0), column: 0, row: 0))])
    }

    /// Every common form of the keys the browser uses, whatever terminfo says: tmux sends Home as
    /// `ESC [ 1 ~` to a program told `TERM=xterm-256color`, whose entry says `ESC O H`.
    @Test func everyFormOfTheNavigationKeysIsKnown() {
        let forms: [(String, BrowserKey)] = [
            ("\u{1B}[1~", .home), ("\u{1B}[4~", .end), ("\u{1B}[7~", .home), ("\u{1B}[8~", .end), ("\u{1B}[H", .home),
            ("\u{1B}[F", .end), ("\u{1B}OH", .home), ("\u{1B}OF", .end), ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
            ("\u{1B}[3~", .delete), ("\u{1B}[Z", .backTab), ("\u{1B}[A", .up), ("\u{1B}[B", .down), ("\u{1B}[C", .right),
            ("\u{1B}[D", .left), ("\u{1B}OA", .up), ("\u{1B}OB", .down), ("\u{1B}OC", .right), ("\u{1B}OD", .left),
            ("\u{1B}[1;2C", .shiftRight), ("\u{1B}[1;2D", .shiftLeft), ("\u{1B}[1;2A", .shiftUp), ("\u{1B}[1;2B", .shiftDown),
            ("\u{1B}OM", .enter), ("\u{1B}Ok", .character("+")), ("\u{1B}Om", .character("-")), ("\u{1B}Oq", .character("1")),
        ]
        for (form, key) in forms {
            #expect(decode([form]) == [.key(key)], "\(form.debugDescription)")
        }
        // Split between reads, as a slow link may deliver them.
        #expect(decode(["\u{1B}[", "4~"]) == [.key(.end)])
        #expect(decode(["\u{1B}O", "H"]) == [.key(.home)])
    }

    /// An escape sequence the browser does not know is dropped whole: nothing of it is read as
    /// Escape (which quits) or as the keys inside it.
    @Test func unknownSequencesAreDroppedWhole() {
        for unknown in [
            "\u{1B}[15~", "\u{1B}[2~", "\u{1B}[1;5C", "\u{1B}[1;3H", "\u{1B}OP", "\u{1B}[I", "\u{1B}[O", "\u{1B}[200~",
            "\u{1B}[?62;4c", "\u{1B}[6;20;10t", "\u{1B}[<1;2x", "\u{1B}[<1;2;3;4M", "\u{1B}[<;1;1M", "\u{1B}q", "\u{1B}\t",
            "\u{1B}]11;rgb:0000/0000/0000\u{07}", "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\", "\u{1B}P>|xterm(379) q\u{1B}\\",
            "\u{1B}_Gi=31;OK\u{1B}\\",
        ] {
            #expect(decode([unknown]) == [], "\(unknown.debugDescription)")
        }
        // What follows one still counts.
        #expect(decode(["\u{1B}[15~q"]) == [.key(.character("q"))])
        #expect(decode(["\u{1B}]11;rgb:0/0/0\u{07}\u{1B}[4~"]) == [.key(.end)])
        // A control string split across reads is dropped to its end.
        #expect(decode(["\u{1B}]11;rgb:00", "00/0/0\u{1B}", "\\x"]) == [.key(.character("x"))])
        // A sequence broken off by something that cannot be in it: what broke it counts.
        #expect(decode(["\u{1B}[12\u{1B}[C"]) == [.key(.right)])
    }

    @Test func theEscapeKeyAloneIsEscape() {
        #expect(decode(["\u{1B}"]) == [.key(.escape)])
        #expect(decode(["\u{1B}", "q"]) == [.key(.escape), .key(.character("q"))])
        #expect(decode(["\u{1B}\u{1B}"]) == [.key(.escape), .key(.escape)])
        var decoder = BrowserKeyDecoder()
        #expect(decoder.feed(.escape) == [])
        #expect(decoder.feed(.left) == [.key(.escape), .key(.left)], "Escape, then a key ncurses decoded")
    }

    @Test func noiseIsBoundedAndEndsWithTheRead() {
        // A parameter list without end, and a string without end: dropped, and the next read is read.
        let longCSI = "\u{1B}[" + String(repeating: "1;", count: 200)
        #expect(decode([longCSI + "q", "x"]) == [.key(.character("x"))])
        let longString = "\u{1B}]" + String(repeating: "q", count: BrowserKeyDecoder.longestString + 10)
        #expect(decode([longString, "x"]) == [.key(.character("x"))])
    }

    func state(tabs: Int = 40, selected: Int = 0) -> BrowserState {
        let images = (0..<tabs).map { AppImage(name: "photo\($0 + 1)", url: URL(string: "https://example.org/\($0).jpg")!) }
        return BrowserState(
            images: images, selectedIndex: selected, terminalSize: TerminalSize(columns: 120, rows: 36), mode: .blocks,
            colors: .twoFiftySix)
    }

    @Test func aClickOnATabSelectsItAndTheWheelMovesBetweenTabs() {
        let state = state()
        let placement = TabStripPlacement(state: state, columns: 120)
        let third = placement.strip.tabs[2]
        let middle = placement.column + third.column + 3
        #expect(BrowserCommand(mouse: MouseEvent(.press(button: 0), column: middle, row: 0), on: state) == .jump(2))
        #expect(BrowserCommand(mouse: MouseEvent(.press(button: 0), column: 2, row: 0), on: state) == nil, "the title is no tab")
        #expect(BrowserCommand(mouse: MouseEvent(.release(button: 0), column: middle, row: 0), on: state) == nil)
        #expect(BrowserCommand(mouse: MouseEvent(.wheelDown, column: 10, row: 10), on: state) == .next)
        #expect(BrowserCommand(mouse: MouseEvent(.wheelUp, column: 10, row: 0), on: state) == .previous)
        // Over the metadata pane the wheel means nothing.
        #expect(BrowserCommand(mouse: MouseEvent(.wheelDown, column: 110, row: 10), on: state) == nil)
        var panel = state
        panel.overlay = .help
        #expect(BrowserCommand(mouse: MouseEvent(.press(button: 0), column: middle, row: 0), on: panel) == .dismiss)
        #expect(BrowserCommand(mouse: MouseEvent(.wheelDown, column: 10, row: 10), on: panel) == .lineDown)
    }

    @Test func aClickOnAKeyHintDoesWhatTheKeyDoes() throws {
        let state = state()
        let hints = StatusHints(state: state)
        let line = BrowserScreen(state: state).compose().text(ofRow: 35)
        #expect(line.hasPrefix(hints.text))
        func click(_ text: String, offset: Int = 0) -> BrowserCommand? {
            guard let range = line.range(of: text) else { return nil }
            let column = line.distance(from: line.startIndex, to: range.lowerBound) + offset
            return BrowserCommand(mouse: MouseEvent(.press(button: 0), column: column, row: 35), on: state)
        }
        #expect(click("c cache") == .toggleCache)
        #expect(click("c cache", offset: 4) == .toggleCache)
        #expect(click("? help") == .toggleHelp)
        #expect(click("q quit") == .quit)
        #expect(click("←") == .previous)
        #expect(click("→") == .next)
        #expect(click("+ -") == .zoomIn)
        #expect(click("+ -", offset: 2) == .zoomOut)
        // Zoomed, the pan keys are hints too.
        var zoomed = state
        zoomed.viewport = Viewport(zoom: 2, centerX: 0.5, centerY: 0.5)
        let zoomedHints = StatusHints(state: zoomed)
        #expect(zoomedHints.text.contains("+ - zoom ×2  H J K L pan  0 fit"))
        let pan = try #require(zoomedHints.targets.first(where: { $0.command == .pan(dx: 1, dy: 0) }))
        #expect(BrowserCommand(mouse: MouseEvent(.press(button: 0), column: pan.column, row: 35), on: zoomed) == .pan(dx: 1, dy: 0))
        // While the status line says something else, it has no hints to click.
        var failed = state
        failed.phase = .failed("boom")
        #expect(BrowserCommand(mouse: MouseEvent(.press(button: 0), column: 3, row: 35), on: failed) == nil)
    }

    @Test func findingLooksFromTheStartingTabOnAndWrapsAround() {
        let names = ["cat", "dog", "Catalog", "bird", "concat"]
        #expect(TabFinder(query: "cat").match(in: names, from: 0) == 0)
        #expect(TabFinder(query: "CAT").match(in: names, from: 1) == 2)
        #expect(TabFinder(query: "cat").match(in: names, from: 3) == 4)
        #expect(TabFinder(query: "cat").match(in: names, from: 4, forward: false) == 4)
        #expect(TabFinder(query: "dog").match(in: names, from: 2) == 1, "round past the end")
        #expect(TabFinder(query: "fish").match(in: names, from: 0) == nil)
        #expect(TabFinder(query: "").match(in: names, from: 3) == 3)
    }

    @Test func typedDigitsNameATabAndStartAgainPastTheLast() {
        #expect(BrowserPrompt.goToText("", typing: 1, tabCount: 40) == "1")
        #expect(BrowserPrompt.goToText("1", typing: 2, tabCount: 40) == "12")
        #expect(BrowserPrompt.goToText("4", typing: 5, tabCount: 40) == "5")
        #expect(BrowserPrompt.goToText("4", typing: 0, tabCount: 40) == "40")
        #expect(BrowserPrompt.goToText("5", typing: 0, tabCount: 40) == "5")
        #expect(BrowserPrompt.goToText("", typing: 7, tabCount: 5) == "7", "shown, and said to be no tab")
    }
}
