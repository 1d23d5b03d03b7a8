import Foundation
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging

/// Mouse reports picked out of the key stream, what a click or the wheel means where it lands,
/// finding tabs by name and typing tab numbers.
@Suite("Browser input")
struct BrowserInputTests {
    func keys(_ text: String) -> [BrowserKey] {
        text.map { $0 == "\u{1B}" ? .escape : .character($0) }
    }

    func decode(_ reads: [String]) -> [MouseInputDecoder.Output] {
        var decoder = MouseInputDecoder()
        var outputs: [MouseInputDecoder.Output] = []
        for read in reads {
            for key in keys(read) { outputs += decoder.feed(key) }
            outputs += decoder.endOfInput()
        }
        return outputs
    }

    @Test func sgrReportsBecomeMouseEventsAndEverythingElseStaysKeys() {
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
        // The Escape key alone, and keys that only looked like a report.
        #expect(decode(["\u{1B}"]) == [.key(.escape)])
        #expect(decode(["\u{1B}x"]) == [.key(.escape), .key(.character("x"))])
        #expect(decode(["\u{1B}[<1;2x"]) == keys("\u{1B}[<1;2x").map { .key($0) })
        #expect(decode(["\u{1B}[<1;2;3;4M"]) == keys("\u{1B}[<1;2;3;4M").map { .key($0) })
        #expect(decode(["\u{1B}\u{1B}[<0;1;1M"]) == [.key(.escape), .mouse(MouseEvent(.press(button: 0), column: 0, row: 0))])
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
