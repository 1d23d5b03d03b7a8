import Foundation
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging

/// The screen for the browsing features: the whole-width preview, zoom in the title and the status
/// line, prompts, and a cache panel longer than the screen.
@Suite("BrowserScreen views and panels")
struct BrowserScreenViewTests {
    func state(tabs: Int = 3, size: TerminalSize = TerminalSize(columns: 100, rows: 30)) -> BrowserState {
        let images = (0..<tabs).map { AppImage(name: "img\($0)", url: URL(string: "https://example.org/\($0).jpg")!) }
        return BrowserState(images: images, terminalSize: size, mode: .blocks, colors: .twoFiftySix)
    }

    @Test func fullWidthHidesTheMetadataPane() {
        var wide = state()
        wide.isFullWidth = true
        let frame = BrowserScreen(state: wide).compose()
        #expect(frame.text(ofRow: 1).hasPrefix("┌ preview · blocks · img0 ─"))
        #expect(frame.text(ofRow: 1).hasSuffix("┐") && frame.text(ofRow: 1).filter { $0 == "┐" }.count == 1)
        #expect(!frame.text.contains("url "))
        #expect(frame.text(ofRow: 29).contains("f facts"))
        wide.viewport = Viewport(zoom: 2.25, centerX: 0.5, centerY: 0.5)
        let zoomed = BrowserScreen(state: wide).compose()
        #expect(zoomed.text(ofRow: 1).hasPrefix("┌ preview · blocks · img0 · ×2.3 ─"))
        #expect(zoomed.text(ofRow: 29).hasPrefix(" ← → tab  / find  + - zoom ×2.3  H J K L pan  0 fit  f facts"))
    }

    @Test func promptsTakeTheStatusLine() {
        var finding = state()
        finding.prompt = BrowserPrompt(kind: .find, text: "cat", origin: 0)
        let frame = BrowserScreen(state: finding).compose()
        #expect(frame.text(ofRow: 29).hasPrefix(" /cat "))
        #expect(frame[5, 29].style == .reverse, "a block where the next character goes")
        finding.prompt?.hasNoMatch = true
        #expect(BrowserScreen(state: finding).compose().text(ofRow: 29).contains("/cat   (no tab's name contains this)"))
        var going = state(tabs: 40)
        going.prompt = BrowserPrompt(kind: .goTo, text: "1", origin: 0)
        #expect(BrowserScreen(state: going).compose().text(ofRow: 29).hasPrefix(" go to tab 1   Enter: done  Esc: back"))
    }

    @Test func aLongCachePanelScrollsToItsSelectedRow() {
        var panel = state(size: TerminalSize(columns: 100, rows: 20))
        let rows = (0..<50).map { index in
            CacheOverview.Row(
                name: "entry\(index)", url: URL(string: "https://example.org/\(index).jpg")!, byteCount: 1000, format: .jpeg,
                isFresh: true, lastUsed: Date(timeIntervalSince1970: 0))
        }
        var overview = CacheOverview(rows: rows, totalBytes: 50_000, limitBytes: 1 << 30, directory: "/tmp/cache")
        overview.selectedRow = 30
        panel.overlay = .cache(overview)
        let frame = BrowserScreen(state: panel).compose()
        let text = frame.text
        #expect(text.contains("entry30 "))
        #expect(!text.contains("entry0 ") && !text.contains("entry49 "))
        #expect(text.contains("Del removes"))
        #expect(text.contains("of 50"))
        let selectedRow = (0..<frame.rows).first { frame.text(ofRow: $0).contains("entry30 ") }
        let column = selectedRow.flatMap { row in
            frame.text(ofRow: row).range(of: "entry30").map {
                frame.text(ofRow: row).distance(from: frame.text(ofRow: row).startIndex, to: $0.lowerBound)
            }
        }
        #expect(selectedRow.flatMap { row in column.map { frame[$0, row].style } } == .reverse)
        // The end of the list shows whole.
        overview.selectedRow = 49
        panel.overlay = .cache(overview)
        #expect(BrowserScreen(state: panel).compose().text.contains("entry49 "))
    }
}
