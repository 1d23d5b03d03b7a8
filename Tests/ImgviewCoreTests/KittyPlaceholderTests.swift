import ImgviewSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewImaging
@testable import ImgviewTerminalDetection

/// kitty's Unicode placeholders inside tmux: asked of the terminal outside, sent as a virtual
/// placement and shown by text tmux keeps.
@Suite("kitty Unicode placeholders")
struct KittyPlaceholderTests {
    static let environment = TmuxQuestionTests.environment
    static let escape = "\u{1B}"

    /// The profile inside tmux when the terminal outside answered `outer` (nil: not asked).
    static func profile(outer: String?, clientVersion: String? = nil) -> TerminalProfile {
        let tmuxAnswer = Array("\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c".utf8)
        let outcome = TerminalQueryOutcome(replies: TerminalDetectionTests.parse(tmuxAnswer), elapsed: .milliseconds(2), status: .answered)
        let facts = TerminalDetector.TmuxFacts(
            version: "3.3a", clientTerminal: clientVersion ?? "xterm-256color", clientVersion: clientVersion, allowsPassthrough: true,
            answersReachPane: outer != nil)
        return TerminalDetector(
            environment: TerminalEnvironment(environment), query: outcome, tmux: facts,
            outer: outer.map { TerminalDetectionTests.parse(Array($0.utf8)) }
        ).profile()
    }

    static func kittyAnswers(_ version: String, placeholders: Bool) -> String {
        "\(escape)P>|\(version)\(escape)\\\(escape)_Gi=31;OK\(escape)\\" + (placeholders ? "\(escape)_Gi=32;OK\(escape)\\" : "")
            + "\(escape)[0n"
    }

    @Test func theVirtualPlacementQueryHasItsOwnAnswer() {
        let replies = TerminalDetectionTests.parse(Array(Self.kittyAnswers("kitty(0.35.2)", placeholders: true).utf8))
        #expect(replies.kittyGraphics == "OK" && replies.kittyPlaceholders == "OK" && replies.unclaimed.isEmpty)
        let old = TerminalDetectionTests.parse(Array(Self.kittyAnswers("kitty(0.26.5)", placeholders: false).utf8))
        #expect(old.kittyGraphics == "OK" && old.kittyPlaceholders == nil)
    }

    @Test func placeholdersOnlyWhereTheTerminalOutsideAnswersForThem() {
        let new = Self.profile(outer: Self.kittyAnswers("kitty(0.35.2)", placeholders: true))
        #expect(new.kittyPlaceholders && new.autoMode == .kitty)
        #expect(new.graphics[0].reason.contains("Unicode placeholders: kitty(0.35.2)"))
        #expect(GraphicsTerminal(profile: new).paneOptions(.kitty, columns: 10, rows: 5).kittyPlaceholders)
        #expect(!GraphicsTerminal(profile: new).paneOptions(.sixel, columns: 10, rows: 5).kittyPlaceholders)
        #expect(new.json.contains("\"kitty_placeholders\": true"))
        // kitty 0.26.5 does not answer the question with `U=1`, and its version says so too.
        let old = Self.profile(outer: Self.kittyAnswers("kitty(0.26.5)", placeholders: false))
        #expect(!old.kittyPlaceholders && old.autoMode == .kitty)
        #expect(old.graphics[0].reason.contains("kitty(0.26.5) did not take a virtual placement (U=1)"))
        // Had it answered, its version would still say no.
        #expect(
            Self.profile(outer: Self.kittyAnswers("kitty(0.26.5)", placeholders: true)).graphics[0].reason.contains(
                "kitty(0.26.5) (XTVERSION through tmux) has no Unicode placeholders"))
        // A kitty that names a new version but did not take the virtual placement: not trusted.
        #expect(!Self.profile(outer: Self.kittyAnswers("kitty(0.35.2)", placeholders: false)).kittyPlaceholders)
        // Ghostty names itself so; WezTerm answers any key but has no placeholders.
        #expect(Self.profile(outer: Self.kittyAnswers("ghostty 1.1.3", placeholders: true)).kittyPlaceholders)
        #expect(!Self.profile(outer: Self.kittyAnswers("WezTerm 20240203-110809-5046fc22", placeholders: true)).kittyPlaceholders)
        // Not asked (another pane is active): tmux's copy of the terminal's XTVERSION is an answer too.
        #expect(Self.profile(outer: nil, clientVersion: "kitty(0.30.1)").kittyPlaceholders)
        #expect(!Self.profile(outer: nil, clientVersion: "kitty(0.26.5)").kittyPlaceholders)
        #expect(!Self.profile(outer: nil).kittyPlaceholders)
    }

    @Test func versionsWithPlaceholders() {
        for version in ["kitty(0.28.0)", "kitty(0.35.2)", "kitty(1.0.0)", "ghostty 1.0.1", "Ghostty 1.2"] {
            #expect(TerminalDetector.drawsPlaceholders(version: version), "\(version)")
        }
        for version in ["kitty(0.26.5)", "kitty(0.27.1)", "kitty()", "kitty(x)", "XTerm(379)", "tmux 3.5a", ""] {
            #expect(!TerminalDetector.drawsPlaceholders(version: version), "\(version)")
        }
    }

    @Test func idsAre256ColourIndicesAndAHighByte() {
        #expect(KittyPlaceholders.imageID(for: 0, start: 5 * 240) == 0x0500_0010)
        #expect(KittyPlaceholders.imageID(for: 239, start: 5 * 240) == 0x0500_00FF)
        #expect(KittyPlaceholders.imageID(for: 240, start: 5 * 240) == 0x0600_0010)
        #expect(KittyPlaceholders.imageID(for: 1, start: 255 * 240) == 0xFF00_0011)
        #expect(KittyPlaceholders.imageID(for: 1, start: 7) == 0x0000_0018)
        // Past the last id it wraps to the first.
        #expect(KittyPlaceholders.imageID(for: 2, start: KittyPlaceholders.idCount - 1) == 0x0000_0011)
        for id: UInt32 in [1, 2, 0x6967_0003, GraphicsTerminal.paneImageID, 0xFFFF_FFFF] {
            let mapped = KittyPlaceholders.imageID(for: id)
            #expect(mapped & 0x00FF_FF00 == 0 && mapped & 0xFF >= 16)
        }
        // The grid's ids stay apart from one another.
        let grid = (0..<600).map { KittyPlaceholders.imageID(for: 0x6967_0000 + UInt32($0)) }
        #expect(Set(grid).count == grid.count)
        // Whatever the start, every one of a process's 61,440 numbers is its own id.
        for start in [0, 239, 240, KittyPlaceholders.idCount - 1] {
            let all = (0..<UInt32(KittyPlaceholders.idCount)).map { KittyPlaceholders.imageID(for: $0, start: start) }
            #expect(Set(all).count == KittyPlaceholders.idCount)
        }
    }

    @Test func theDiacriticsAreKittysTable() {
        #expect(KittyPlaceholders.diacritics.count == 297)
        #expect(KittyPlaceholders.diacritics.prefix(5) == ["\u{0305}", "\u{030D}", "\u{030E}", "\u{0310}", "\u{0312}"])
        #expect(KittyPlaceholders.diacritics.last == "\u{1D244}")
        #expect(Set(KittyPlaceholders.diacritics).count == 297)
    }

    /// kitty's own example, 2 × 2 cells of image 42 with 2 as its highest byte, and the block's moves.
    @Test func placeholderTextNamesEachCellAndTheID() {
        let text = KittyPlaceholders(imageID: 42 + (2 << 24), columns: 2, rows: 2)
        let cell = { (row: String, column: String) in "\u{10EEEE}\(row)\(column)\u{030E}" }
        #expect(
            text.row(0)
                == Array("\(Self.escape)[38;5;42m\(cell("\u{0305}", "\u{0305}"))\(cell("\u{0305}", "\u{030D}"))\(Self.escape)[39m".utf8))
        #expect(
            text.row(1)
                == Array("\(Self.escape)[38;5;42m\(cell("\u{030D}", "\u{0305}"))\(cell("\u{030D}", "\u{030D}"))\(Self.escape)[39m".utf8))
        #expect(text.block(column: 4) == text.row(0) + Array("\r\(Self.escape)[1B\(Self.escape)[4C".utf8) + text.row(1))
        #expect(text.block(column: 0) == text.row(0) + Array("\r\(Self.escape)[1B".utf8) + text.row(1))
        #expect(KittyPlaceholders(imageID: 17, columns: 500, rows: 0).columns == 297)
    }

    @Test func theImageIsSentWithAVirtualPlacementAndItsCellsInTheText() throws {
        let options = GraphicsOptions(
            graphics: .kitty, columns: 6, rows: 3, cell: .reported(width: 10, height: 20), passthrough: true, imageID: 7,
            movesCursor: false, kittyPlaceholders: true)
        let pixels = PixelBuffer(width: 40, height: 40, bytes: [UInt8](repeating: 200, count: 40 * 40 * 4))
        let preview = try GraphicsRenderer(options: options, pngEncoder: nil).render(pixels)
        let id = KittyPlaceholders.imageID(for: 7)
        #expect(preview.imageID == id && preview.placeholders == KittyPlaceholders(imageID: id, columns: 4, rows: 2))
        #expect(preview.layout == GraphicsLayout(pixelWidth: 40, pixelHeight: 40, columns: 4, rows: 2))
        var bytes = preview.bytes[...]
        var undoubled: [UInt8] = []
        while let byte = bytes.popFirst() {
            undoubled.append(byte)
            if byte == 0x1B, bytes.first == 0x1B { bytes.removeFirst() }
        }
        let unwrapped = String(decoding: undoubled, as: UTF8.self)
        #expect(TmuxPlacement.isPassedThrough(preview.bytes))
        #expect(unwrapped.contains("\u{1B}_Ga=T,U=1,i=\(id),c=4,r=2,q=2,f=24,s=40,v=40,m=1;"))
        #expect(!unwrapped.contains("C=1") && !unwrapped.contains("\u{10EEEE}"))
        // Without placeholders: today's placement, at the cursor.
        var placed = options
        placed.kittyPlaceholders = false
        let direct = try GraphicsRenderer(options: placed, pngEncoder: nil).render(pixels)
        #expect(direct.placeholders == nil && direct.imageID == 7)
        #expect(String(decoding: direct.bytes, as: UTF8.self).contains("_Ga=T,i=7,q=2,C=1,f=24"))
    }

    @Test func theBrowserWritesTheTextInItsCellsAndErasesItWhenTheImageGoes() {
        let text = KittyPlaceholders(imageID: 0x0300_0020, columns: 3, rows: 2)
        let sent = TerminalRoute.tmuxPassthrough.wrap(Array("\u{1B}_Ga=T,U=1,i=50331680;AAAA\u{1B}\\".utf8))
        let preview = GraphicsPreview(
            layout: GraphicsLayout(pixelWidth: 30, pixelHeight: 40, columns: 3, rows: 2), bytes: sent, graphics: .kitty,
            imageID: text.imageID, placeholders: text)
        let graphic = PlacedGraphic(column: 5, row: 2, preview: preview)
        var placement = GraphicsPlacement(terminal: GraphicsTerminal(passthrough: true, kittyPlaceholders: true))
        let screen = TerminalSize(columns: 40, rows: 10)
        let drawn = placement.update(to: graphic, cleared: false, textOverwrites: false, screen: screen)
        #expect(drawn.steps == [.draw(graphic)])
        let rows = Array("\u{1B}7\u{1B}[3;6H".utf8) + text.row(0) + Array("\u{1B}[4;6H".utf8) + text.row(1) + Array("\u{1B}8".utf8)
        #expect(drawn.after == sent + rows)
        // Text over its cells takes the image away, as over a sixel's.
        let overwritten = placement.update(to: graphic, cleared: false, textOverwrites: true, screen: screen)
        #expect(overwritten.steps == [.delete(imageID: text.imageID), .draw(graphic)])
        // Gone: its data deleted by id (through tmux), its text written over with blanks.
        let gone = placement.update(to: nil, cleared: false, textOverwrites: false, screen: screen)
        #expect(gone.steps == [.delete(imageID: text.imageID), .erase(graphic.area)])
        let before = String(decoding: gone.before, as: UTF8.self)
        #expect(before.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=I,i=\(text.imageID),q=2"))
        #expect(before.contains("\u{1B}[3;6H   \u{1B}[4;6H   "))
        // tmux keeps it across a window switch: not lost with the images placed past tmux.
        _ = placement.update(to: graphic, cleared: false, textOverwrites: false, screen: screen)
        let back = placement.update(
            to: [graphic], cleared: false, lost: \.isPositionedPastTmux, textOverwrites: { _ in false }, screen: screen)
        #expect(back.isEmpty && !graphic.isPositionedPastTmux && graphic.isPaintedInCells)
    }
}
