import Foundation
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// The browser's screen composed from states, without a terminal.
@Suite("BrowserScreen")
struct BrowserScreenTests {
    func state(names: [String], selected: Int = 0, size: TerminalSize = TerminalSize(columns: 100, rows: 30)) -> BrowserState {
        let images = names.map {
            AppImage(name: $0, title: "Title of \($0)", url: URL(string: "https://example.org/very/long/path/to/\($0).jpg")!)
        }
        return BrowserState(images: images, selectedIndex: selected, terminalSize: size, mode: .blocks, colors: .twoFiftySix)
    }

    @Test func theTabStripMarksTheSelectedTabAndCountsTheImages() {
        let frame = BrowserScreen(state: state(names: ["image0", "image1", "image2"], selected: 1)).compose()
        let strip = frame.text(ofRow: 0)
        #expect(strip.hasPrefix(" imgview ─   image0  [ image1 ]  image2  "))
        #expect(strip.hasSuffix("3 images "))
        let selectedColumn = DisplayWidth.of(" imgview ─   image0  ")
        #expect(frame[selectedColumn, 0].style == [.reverse, .bold])
        #expect(frame[selectedColumn - 3, 0].style == [])
    }

    @Test func tabsThatDoNotFitScrollAndShowThatThereIsMore() {
        let names = (0..<40).map { "picture\($0)" }
        let middle = BrowserScreen(state: state(names: names, selected: 20)).compose().text(ofRow: 0)
        #expect(middle.contains("[ picture20 ]"))
        #expect(middle.contains("‹") && middle.contains("›"))
        #expect(!middle.contains(" picture0 "))
        let first = BrowserScreen(state: state(names: names, selected: 0)).compose().text(ofRow: 0)
        #expect(first.contains("[ picture0 ]") && !first.contains("‹") && first.contains("›"))
        let last = BrowserScreen(state: state(names: names, selected: 39)).compose().text(ofRow: 0)
        #expect(last.contains("[ picture39 ]") && last.contains("‹") && !last.contains("›"))
        #expect(last.hasSuffix("40 images "))
    }

    @Test func aPagedCatalogSaysThereAreMore() {
        var paged = state(names: ["a", "b"])
        paged.hasMorePages = true
        #expect(BrowserScreen(state: paged).compose().text(ofRow: 0).hasSuffix("2+ images "))
    }

    @Test func theMetadataPaneShowsTheLoadedImagesFacts() {
        var loaded = state(names: ["image0"])
        let url = loaded.images[0].url
        let fetched = Date(timeIntervalSince1970: 1000)
        let entry = CacheEntry(
            url: url, finalURL: url, contentType: "image/jpeg", format: .jpeg, byteCount: 1_800_000,
            sha256: String(repeating: "a", count: 64),
            etag: nil, lastModified: nil, fetchedAt: fetched, lastAccessedAt: fetched, freshUntil: fetched.addingTimeInterval(29 * 60))
        let facts = ImageFacts(
            url: url, header: ImageHeader(format: .jpeg, storedWidth: 3840, storedHeight: 2400, orientation: .up), entry: entry,
            source: .disk, fetchTime: .milliseconds(12), decodeTime: .microseconds(8400),
            cacheState: .fresh(until: fetched.addingTimeInterval(29 * 60)))
        loaded.phase = .loaded(ShownImage(facts: facts, preview: nil))
        let text = BrowserScreen(state: loaded, now: Date(timeIntervalSince1970: 1000)).compose().text
        #expect(text.contains("format  JPEG 3840×2400"))
        #expect(text.contains("bytes   1.8 MB"))
        #expect(text.contains("source  disk cache"))
        #expect(text.contains("fetched 12.0 ms"))
        #expect(text.contains("decoded 8.4 ms"))
        #expect(text.contains("cache   fresh for 29m"))
        // The URL is elided in the middle: both ends stay.
        let urlRow = text.split(separator: "\n").first { $0.contains(" url ") }.map(String.init) ?? ""
        #expect(urlRow.contains("https://") && urlRow.contains("…") && urlRow.contains("age0.jpg"))
    }

    @Test func loadingShowsSpinnerAndPercentInTheStatusLine() {
        var loading = state(names: ["image0"])
        loading.phase = .loading(received: 450, expected: 1000)
        let frame = BrowserScreen(state: loading, spinnerFrame: 1).compose()
        #expect(frame.text(ofRow: 29).hasSuffix("⠙ 45% "))
        #expect(frame.text.contains("loading image0… 45%"))
        #expect(BrowserScreen.isAnimated(loading))
        loading.phase = .failed("boom")
        #expect(!BrowserScreen.isAnimated(loading))
    }

    @Test func aFailureIsOneLineInTheStatusLine() {
        var failed = state(names: ["image0"])
        let message = "http://example.org/a.jpg: HTTP 500 (internal server error), and a reason long enough to wrap in a pane"
        failed.phase = .failed(message)
        let frame = BrowserScreen(state: failed).compose()
        let text = frame.text
        #expect(text.contains("could not show image0"))
        #expect(text.contains("status  failed"))
        // Once, on the last row, in red: not wrapped over the side pane.
        #expect(frame.text(ofRow: 29).hasPrefix(" http://example.org/a.jpg: HTTP 500 (internal server error), and"))
        #expect(text.components(separatedBy: "HTTP 500").count == 2)
        #expect(frame[1, 29].foreground == .indexed(9))
        // A key brings the hints back.
        failed.phase = .idle
        #expect(BrowserScreen(state: failed).compose().text(ofRow: 29).contains("q quit"))
    }

    @Test func untrustedTextCannotReachTheTerminalAsEscapes() {
        let images = [AppImage(name: "evil", title: "\u{1B}]0;pwned\u{07}title\u{1B}[2J", url: URL(string: "https://example.org/a.jpg")!)]
        var evil = BrowserState(
            images: images, terminalSize: TerminalSize(columns: 100, rows: 30), mode: .blocks, colors: .twoFiftySix)
        evil.phase = .failed("bad \u{1B}[31mred")
        evil.notice = Notice("saved \u{1B}[Hx")
        let frame = BrowserScreen(state: evil).compose()
        #expect(!frame.cells.contains { $0.character.unicodeScalars.contains { TerminalText.isUnsafe($0) } })
    }

    @Test func aTerminalTooSmallGetsAMessage() {
        let frame = BrowserScreen(state: state(names: ["a"], size: TerminalSize(columns: 30, rows: 8))).compose()
        #expect(frame.text.contains("terminal too small: 30×8"))
        #expect(frame.text.contains("imgview needs 50×12"))
        #expect(!frame.text.contains("┌"))
    }

    @Test func theHelpPanelListsEveryKey() {
        var help = state(names: ["a"], size: TerminalSize(columns: 100, rows: 40))
        help.overlay = .help
        let text = BrowserScreen(state: help).compose().text
        for (keys, meaning) in BrowserScreen.helpLines(for: .standard) {
            #expect(text.contains(keys) && text.contains(meaning), "\(keys) \(meaning)")
        }
        // Shorter, in two columns with the meanings cut: every key is still there, and the footer.
        var short = help
        short.terminalSize = TerminalSize(columns: 100, rows: 30)
        let cut = BrowserScreen(state: short).compose().text
        for (keys, _) in BrowserScreen.helpLines(for: .standard) { #expect(cut.contains(keys), "\(keys)") }
        #expect(cut.contains("any key closes this panel"))
        #expect(text.contains("← h S-Tab / → l Tab"))
        #expect(text.contains("D Del / u"))
        #expect(text.contains("Ctrl-X"))
    }

    @Test func theHelpPanelAndTheHintsShowTheKeysAsBound() throws {
        var help = state(names: ["a"])
        help.keymap = try Keymap.standard.applying([
            .init(action: "next", keys: ["n", "Right"]), .init(action: "quit", keys: ["Q"]), .init(action: "save", keys: []),
        ])
        let hints = StatusHints(state: help)
        #expect(hints.text.hasPrefix(" ← n tab  / find"))
        #expect(hints.text.contains("Q quit"))
        #expect(!hints.text.contains("save"), "an action without keys has no hint")
        help.overlay = .help
        let text = BrowserScreen(state: help).compose().text
        #expect(text.contains("← h S-Tab / n →"))
        #expect(text.contains("Q    ") || text.contains("Q  "))
        #expect(!text.contains("save the marked images"))
    }

    @Test func wideCharactersTakeTwoCellsAndNeverCrossABorder() {
        var frame = ScreenFrame(columns: 10, rows: 1)
        let end = frame.put("画像ab", column: 0, row: 0, limit: 5)
        #expect(end == 5)
        #expect(frame.text(ofRow: 0) == "画像a     ")
        #expect(frame[1, 0].isContinuation)
        #expect(DisplayWidth.elidedMiddle("abcdefghij", to: 7) == "abc…hij")
        #expect(DisplayWidth.truncated("画像画像", to: 5) == "画像…")
    }

    @Test func everyStateFitsEveryReasonableSize() {
        for columns in stride(from: 20, through: 220, by: 25) {
            for rows in stride(from: 5, through: 70, by: 9) {
                var any = state(names: (0..<12).map { "n\($0)" }, selected: 5, size: TerminalSize(columns: columns, rows: rows))
                any.phase = .failed(String(repeating: "long message ", count: 20))
                any.notice = Notice(String(repeating: "x", count: 300), isError: true)
                let frame = BrowserScreen(state: any).compose()
                #expect(frame.columns == columns && frame.rows == rows)
                for row in 0..<rows { #expect(DisplayWidth.of(frame.text(ofRow: row)) == columns) }
            }
        }
    }
}

/// The tab strip over catalogs of any size.
@Suite("Tab strip")
struct TabStripTests {
    /// Names that count how many were read.
    struct CountingNames: RandomAccessCollection {
        let count: Int
        let reads: Locked<Int>
        var startIndex: Int { 0 }
        var endIndex: Int { count }
        subscript(position: Int) -> String {
            reads.withLock { $0 += 1 }
            return "img\(position)"
        }
    }

    @Test func aHundredThousandTabsLayOutFromTheFewNearTheSelection() {
        let reads = Locked(0)
        let names = CountingNames(count: 100_000, reads: reads)
        for selected in [0, 50_000, 99_999] {
            reads.withLock { $0 = 0 }
            let strip = TabStrip(names: names, selected: selected, width: 100)
            #expect(strip.tabs.contains { $0.index == selected && $0.isSelected })
            #expect(reads.withLock { $0 } < 50, "read \(reads.withLock { $0 }) names for one strip")
            #expect(strip.hiddenBefore == (selected > 0))
            #expect(strip.hiddenAfter == (selected < 99_999))
            #expect((strip.tabs.last.map { $0.column + DisplayWidth.of($0.label) } ?? 0) <= 98)
        }
    }

    @Test func aStripThatFitsIsShownWhole() {
        let strip = TabStrip(names: ["a", "b", "c"], selected: 1, width: 80)
        #expect(strip.tabs.map(\.label) == ["  a  ", "[ b ]", "  c  "])
        #expect(strip.tabs.map(\.column) == [0, 5, 10])
        #expect(!strip.hiddenBefore && !strip.hiddenAfter)
    }
}

/// `DisplayWidth` answers the characters previews are made of without a property lookup; that
/// shortcut must agree with what the lookup would say.
@Suite("Display width")
struct DisplayWidthTests {
    @Test func previewCharactersAreOneColumnAsTheirPropertiesSay() {
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0x2500...0x259F, 0x2800...0x28FF, 0x1FB00...0x1FB3B]
        for value in ranges.joined() {
            let scalar = Unicode.Scalar(value)!
            let category = scalar.properties.generalCategory
            #expect(![.nonspacingMark, .enclosingMark, .format].contains(category), "U+\(String(value, radix: 16))")
            #expect(!scalar.properties.isEmojiPresentation && !DisplayWidth.isWide(value), "U+\(String(value, radix: 16))")
            #expect(DisplayWidth.of(scalar) == 1, "U+\(String(value, radix: 16))")
        }
        #expect(DisplayWidth.of("界") == 2 && DisplayWidth.of("\u{301}" as Unicode.Scalar) == 0)
    }
}
