import ImgviewSupport
import Testing

@testable import ImgviewImaging
@testable import ImgviewTerminalDetection

@Suite("show's rows for an image, and an image passed through tmux put in its pane")
struct RowReservationTests {
    @Test func theRowsAreMadeFirstAndTheCursorEndsBelowThem() {
        let reservation = RowReservation(rows: 3)
        #expect(reservation.start == Array("\n\n\n\u{1B}[3A\u{1B}7".utf8))
        #expect(reservation.end == Array("\u{1B}8\u{1B}[3B\r".utf8))
        #expect(reservation.start + Array("IMG".utf8) + reservation.end == Array("\n\n\n\u{1B}[3A\u{1B}7IMG\u{1B}8\u{1B}[3B\r".utf8))
        #expect(RowReservation(rows: 0).start == Array("\u{1B}7".utf8) && RowReservation(rows: 0).end == Array("\u{1B}8\r".utf8))
    }

    @Test func everyPassthroughPacketIsPutAtTheOuterCell() {
        // Two kitty chunks, each its own packet with its ESCs doubled, and a byte between them.
        let first = TerminalRoute.tmuxPassthrough.wrap(Array("\u{1B}_Gm=1;AAAA\u{1B}\\".utf8))
        let second = TerminalRoute.tmuxPassthrough.wrap(Array("\u{1B}_Gm=0;BBBB\u{1B}\\".utf8))
        let placed = TmuxPlacement.positioned(first + [0x0A] + second, row: 5, column: 12)
        let packet = { (body: String) in
            "\u{1B}Ptmux;\u{1B}\u{1B}7\u{1B}\u{1B}[5;12H\u{1B}\u{1B}_G\(body)\u{1B}\u{1B}\\\u{1B}\u{1B}8\u{1B}\\"
        }
        #expect(String(decoding: placed, as: UTF8.self) == packet("m=1;AAAA") + "\n" + packet("m=0;BBBB"))
        // Outside packets, nothing changes.
        #expect(TmuxPlacement.positioned(Array("plain\u{1B}[0m".utf8), row: 1, column: 1) == Array("plain\u{1B}[0m".utf8))
    }

    @Test func thePaneOriginFollowsTmuxsArithmetic() {
        // A pane at the window's top left with the status line at the bottom: the same cells.
        #expect(TmuxPaneOrigin(formatAnswer: "0,0,0,0,on,bottom") == TmuxPaneOrigin(row: 0, column: 0))
        // The right pane of a split, under a status line on top, two of them.
        #expect(TmuxPaneOrigin(formatAnswer: "0,41,0,0,2,top") == TmuxPaneOrigin(row: 2, column: 41))
        #expect(TmuxPaneOrigin(formatAnswer: "10,0,0,0,off,top") == TmuxPaneOrigin(row: 10, column: 0))
        // A window bigger than the client, scrolled: the offset is taken off.
        #expect(TmuxPaneOrigin(formatAnswer: "30,80,20,40,on,top") == TmuxPaneOrigin(row: 11, column: 40))
        let origin = TmuxPaneOrigin(row: 2, column: 41)
        #expect(origin.outer(row: 1, column: 1) == (3, 42))
        for bad in ["", "0,0,,0,on,top", "a,b,c,d,on,top", "0,0,0,0,on"] { #expect(TmuxPaneOrigin(formatAnswer: bad) == nil, "\(bad)") }
    }

    @Test func theCursorReportIsFoundAmongKeys() {
        let (reply, rest) = CursorPositionReply.find(in: Array("a\u{1B}[A\u{1B}[12;7Rb".utf8))
        #expect(reply == CursorPositionReply(row: 12, column: 7))
        #expect(rest == Array("a\u{1B}[Ab".utf8))
        let (none, kept) = CursorPositionReply.find(in: Array("\u{1B}[12;".utf8))
        #expect(none == nil && kept == Array("\u{1B}[12;".utf8))
    }
}
