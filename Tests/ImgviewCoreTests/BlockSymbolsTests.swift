import Foundation
import Testing

@testable import ImgviewImaging
@testable import ImgviewTerminalDetection

@Suite("Block symbols: the set a blocks preview draws with, and which terminals get sextants")
struct BlockSymbolsTests {
    static let halves: Set<Character> = ["▀", "▄", "▌", "▐"]
    static let quadrants: Set<Character> = halves.union(["▘", "▝", "▖", "▗", "▚", "▞", "▛", "▜", "▙", "▟"])
    static let eighths: Set<Character> = ["▁", "▂", "▃", "▅", "▆", "▇", "▔", "▏", "▎", "▍", "▋", "▊", "▉", "▕"]

    static func isSextant(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { (0x1FB00...0x1FB3B).contains($0.value) }
    }

    /// A photo-like test card: gradients, a diagonal edge and a disc, so every pattern is wanted somewhere.
    static func card(columns: Int, rows: Int, symbols: BlockSymbols) -> LinearImage {
        let grid = BlockPattern.grid(for: symbols)
        let width = columns * grid.columns
        let height = rows * grid.rows
        var values = [Float](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Float(x - width / 2)
                let dy = Float(y - height / 2) / 2
                let disc: Float = dx * dx + dy * dy < Float(width * width) / 16 ? 1 : 0
                let diagonal: Float = x * height > y * width ? 0.8 : 0.1
                let index = (y * width + x) * 3
                values[index] = disc
                values[index + 1] = diagonal
                values[index + 2] = Float(x % 3) / 2
            }
        }
        return LinearImage(width: width, height: height, values: values)
    }

    static func characters(_ symbols: BlockSymbols, colors: ColorMode) -> Set<Character> {
        let grid = BlockRenderer(symbols: symbols).render(
            card(columns: 40, rows: 12, symbols: symbols), columns: 40, rows: 12, colors: colors)
        return Set((0..<12).flatMap { row in (0..<40).map { grid[$0, row].character } })
    }

    @Test(arguments: [ColorMode.full, .twoFiftySix, .none])
    func eachSetDrawsOnlyItsOwnCharacters(colors: ColorMode) {
        let extra: Set<Character> = [" ", "█"]
        let block = Self.characters(.block, colors: colors)
        #expect(block.isSubset(of: Self.halves.union(extra)), "halves only: \(block)")
        let quad = Self.characters(.quad, colors: colors)
        #expect(quad.isSubset(of: Self.quadrants.union(Self.eighths).union(extra)), "U+2580–U+259F only: \(quad)")
        #expect(!quad.subtracting(Self.halves).subtracting(extra).isEmpty, "more than halves are used: \(quad)")
        let sextant = Self.characters(.sextant, colors: colors)
        #expect(sextant.contains(where: Self.isSextant), "the sextant set uses sextants: \(sextant)")
        #expect(sextant.allSatisfy { Self.quadrants.union(extra).contains($0) || Self.isSextant($0) })
    }

    @Test func theDefaultIsHalvesAndQuadrants() {
        #expect(RenderOptions(columns: 10, rows: 5).symbols == .quad)
        #expect(BlockPattern.patterns(for: .block).count == 3, "empty, ▀ and ▌: each pattern or its complement")
        #expect(BlockPattern.patterns(for: .quad).count == 20, "8 of halves and quadrants, 12 of eighths (▔ pairs with ▇, ▕ with ▉)")
        #expect(BlockPattern.patterns(for: .sextant).count == 38, "32 sextant pairs and the 6 quadrant pairs sextants cannot draw")
        // The set is part of the preview's identity: a cached quadrant preview is not a sextant one.
        var sextants = RenderOptions(columns: 10, rows: 5)
        sextants.symbols = .sextant
        #expect(sextants != RenderOptions(columns: 10, rows: 5))
    }

    @Test func aQuadrantCellIsDrawnAsOne() {
        // Only the upper-left quadrant lit: ▘ (or ▟ with the colours swapped), in both quadrant sets.
        for symbols in BlockSymbols.allCases {
            let grid = BlockPattern.grid(for: symbols)
            var values = [Float](repeating: 0, count: grid.columns * grid.rows * 3)
            for row in 0..<(grid.rows / 2) {
                for column in 0..<(grid.columns / 2) {
                    for channel in 0..<3 { values[(row * grid.columns + column) * 3 + channel] = 1 }
                }
            }
            let image = LinearImage(width: grid.columns, height: grid.rows, values: values)
            let cell = BlockRenderer(symbols: symbols).render(image, columns: 1, rows: 1, colors: .full)[0, 0]
            if symbols == .block {
                #expect(Self.halves.contains(cell.character))
            } else {
                #expect(cell.character == "▘" || cell.character == "▟", "\(symbols): \(cell.character)")
            }
        }
    }

    @Test func aLowEdgeIsDrawnWithAnEighthBlock() {
        // The bottom quarter lit: ▂ (or ▆ the other way round), which halves and quadrants cannot draw.
        var values = [Float](repeating: 0, count: 8 * 8 * 3)
        for index in (6 * 8 * 3)..<(8 * 8 * 3) { values[index] = 1 }
        let cell = BlockRenderer().render(LinearImage(width: 8, height: 8, values: values), columns: 1, rows: 1, colors: .full)[0, 0]
        #expect(cell.character == "▂" || cell.character == "▆", "\(cell.character)")
    }

    // MARK: Which terminals get sextants

    static func profile(
        _ answer: String, environment: [String: String] = ["TERM": "xterm-256color"], tmux: TerminalDetector.TmuxFacts? = nil
    ) -> TerminalProfile {
        TerminalDetectionTests.profile(Array(answer.utf8), environment: environment, tmux: tmux)
    }

    @Test func sextantsWhereTheAnswerNamesATerminalThatDrawsThem() {
        for version in ["kitty(0.26.5)", "WezTerm 20240203-110809-5046fc22", "foot(1.16.2)", "ghostty 1.1.3", "iTerm2 3.5.0", "VTE(7600)"] {
            let profile = Self.profile("\u{1B}P>|\(version)\u{1B}\\\u{1B}[?62;c")
            #expect(profile.symbols == .sextant, "\(version)")
            #expect(profile.symbolsReason.contains(version) && profile.symbolsReason.contains("XTVERSION"))
        }
        // kitty's DA2 names it without XTVERSION; VTE's names its version.
        #expect(Self.profile("\u{1B}[>1;4000;26c\u{1B}[?62;c").symbols == .sextant)
        let vte = Self.profile("\u{1B}[>65;7600;1c\u{1B}[?65;1;9c")
        #expect(vte.symbols == .sextant && vte.symbolsReason == "VTE 0.76 draws sextants itself (DA2)")
    }

    @Test func quadrantsElsewhere() {
        // xterm and mlterm draw from the font, which rarely has sextants; an old VTE drew them from the font too.
        #expect(Self.profile(String(decoding: TerminalDetectionTests.xtermAnswer, as: UTF8.self)).symbols == .quad)
        #expect(Self.profile("\u{1B}[>19;379;0c\u{1B}[?63;1;2;4c").symbols == .quad)
        #expect(Self.profile("\u{1B}[>24;279;0c\u{1B}[?63;1;2;3;4c").symbols == .quad)
        #expect(Self.profile("\u{1B}[>65;6800;1c\u{1B}[?65;1;9c").symbols == .quad)
        #expect(Self.profile("\u{1B}P>|VTE(7000)\u{1B}\\\u{1B}[?65;1;9c").symbols == .quad)
        // A name alone is not an answer: the variables of a kitty the shell was started in prove nothing here.
        let named = Self.profile("\u{1B}[?62;c", environment: ["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"])
        #expect(named.symbols == .quad && named.symbolsReason.hasPrefix("halves and quadrants"))
        #expect(
            TerminalDetector(environment: TerminalEnvironment(["TERM": "xterm-kitty"]), query: nil).profile().symbols == .quad)
    }

    @Test func insideTmuxTheClientsAnswerCountsNotTmuxsOwn() {
        let environment = ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color"]
        let tmuxAnswer = "\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[>84;0;0c\u{1B}[?1;2c"
        let kitty = Self.profile(
            tmuxAnswer, environment: environment,
            tmux: .init(version: "3.3a", clientTerminal: "kitty(0.26.5)", clientVersion: "kitty(0.26.5)", allowsPassthrough: true))
        #expect(kitty.symbols == .sextant && kitty.symbolsReason.contains("tmux's client"))
        // Only the client's TERM: a name, not an answer.
        let named = Self.profile(
            tmuxAnswer, environment: environment,
            tmux: .init(version: "3.3a", clientTerminal: "xterm-kitty", clientVersion: nil, allowsPassthrough: true))
        #expect(named.symbols == .quad)
        // tmux's own DA2 never counts (kitty's DA2 through tmux would be tmux's).
        let own = Self.profile("\u{1B}[>1;4000;26c\u{1B}[?1;2c", environment: environment)
        #expect(own.symbols == .quad)
    }

    @Test func theReportSaysWhichSetAndWhy() throws {
        let profile = Self.profile("\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[?62;c")
        #expect(profile.report.contains("symbols"))
        #expect(profile.reportLines.contains { $0.0 == "symbols" && $0.1 == "sextant: kitty(0.26.5) draws sextants itself (XTVERSION)" })
        let object = try JSONSerialization.jsonObject(with: Data(profile.json.utf8)) as? [String: Any]
        #expect((object?["symbols"] as? [String: Any])?["set"] as? String == "sextant")
    }

    @Test func theQueryAsksDA2BeforeDA1AndReadsItsAnswer() {
        let query = String(decoding: TerminalQuery.bytes, as: UTF8.self)
        #expect(query.hasSuffix("\u{1B}[>c\u{1B}[c"))
        let replies = TerminalDetectionTests.parse(Array("\u{1B}[>1;4000;26c\u{1B}[?62;c".utf8))
        #expect(replies.secondaryAttributes == [1, 4000, 26] && replies.deviceAttributes == [62] && replies.unclaimed.isEmpty)
        let odd = TerminalDetectionTests.parse(Array("\u{1B}[>c\u{1B}[?62;c".utf8))
        #expect(odd.secondaryAttributes == nil && odd.deviceAttributes == [62])
    }
}
