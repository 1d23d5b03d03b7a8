import Testing

@testable import ImgviewBrowser
@testable import ImgviewImaging

/// `DirectCellText`: the escapes the browser writes beside ncurses are short and exact.
@Suite("Cells written directly")
struct DirectCellTextTests {
    func text(_ cells: [(StyledCell, Int, Int)]) -> String {
        var text = DirectCellText()
        for (cell, column, row) in cells { text.append(cell, column: column, row: row) }
        return String(decoding: text.finished(), as: UTF8.self)
    }

    @Test func neighboursShareACursorMoveAndColoursAreSentWhenTheyChange() {
        let red = TerminalColor.rgb(RGBColor(red: 255, green: 0, blue: 0))
        let grey = TerminalColor.indexed(244)
        let written = text([
            (StyledCell("▀", foreground: red, background: grey), 4, 2),
            (StyledCell("▀", foreground: red, background: grey), 5, 2),
            (StyledCell("▄", foreground: red, background: .indexed(9)), 6, 2),
            (StyledCell("x", foreground: .indexed(3), background: .indexed(9)), 0, 3),
        ])
        #expect(
            written
                == "\u{1B}7\u{1B}[3;5H\u{1B}[0;38;2;255;0;0;48;5;244m▀▀\u{1B}[101m▄\u{1B}[4;1H\u{1B}[33mx\u{1B}[0m\u{1B}8")
    }

    @Test func aStyleChangeResetsEverythingAndUnsafeCharactersBecomeBlanks() {
        let written = text([
            (StyledCell("a", foreground: .indexed(2), style: [.bold, .underline]), 0, 0),
            (StyledCell("\u{9B}", foreground: .indexed(2)), 1, 0),
            (StyledCell("界", style: .reverse), 2, 0),
            (StyledCell("b", style: .reverse), 4, 0),
        ])
        #expect(written == "\u{1B}7\u{1B}[1;1H\u{1B}[0;1;4;32ma\u{1B}[0;32m \u{1B}[0;7m界b\u{1B}[0m\u{1B}8")
    }
}
