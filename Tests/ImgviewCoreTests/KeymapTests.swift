import Testing

@testable import ImgviewBrowser

/// Keys by name (a config file's, a key-handler's) and the keymap a `[keys]` table makes.
@Suite("Keymap")
struct KeymapTests {
    @Test func keyNamesReadAsTheyAreWrittenAndBack() {
        let cases: [(String, BrowserKey)] = [
            ("q", .character("q")), ("+", .character("+")), ("Q", .character("Q")), ("C-x", .control("x")), ("C-X", .control("x")),
            ("Left", .left), ("left", .left), ("S-Left", .shiftLeft), ("PageUp", .pageUp), ("PgDn", .pageDown), ("Tab", .tab),
            ("S-Tab", .backTab), ("Enter", .enter), ("Return", .enter), ("Delete", .delete), ("Del", .delete), ("Space", .character(" ")),
            ("space", .character(" ")), ("F5", .function(5)), ("f12", .function(12)), ("Escape", .escape), ("é", .character("é")),
            // Ctrl-letters the terminal sends as other keys are those keys.
            ("C-i", .tab), ("C-m", .enter), ("C-h", .backspace), ("C-c", .interrupt), ("C-z", .suspend),
        ]
        for (name, key) in cases {
            #expect(BrowserKey(name: name) == key, "\(name)")
        }
        for bad in ["", "Ctrl-x", "C-", "C-1", "F0", "F13", "F01", "Lefty", "ab", "\u{7}"] {
            #expect(BrowserKey(name: bad) == nil, "\(bad)")
        }
        for key: BrowserKey in [.character("q"), .control("x"), .shiftUp, .function(3), .character(" "), .delete, .backTab] {
            #expect(BrowserKey(name: key.name) == key, "\(key.name)")
        }
        #expect(BrowserKey.control("x").label == "Ctrl-X")
        #expect(BrowserKey.left.label == "←")
    }

    @Test func aBindingReplacesAnActionsKeysAndTakesTheKeyFromWhereItWas() throws {
        // `n` was nobody's; `l` was next's and goes to mark; D is trash's and stays with it.
        let keymap = try Keymap.standard.applying([
            .init(action: "next", keys: ["n", "Right"], line: 3), .init(action: "mark", keys: ["l"], line: 4),
        ])
        #expect(keymap.command(for: .character("n")) == .next)
        #expect(keymap.command(for: .right) == .next)
        #expect(keymap.command(for: .tab) == nil, "next has only the keys the file gave it")
        #expect(keymap.command(for: .character("l")) == .toggleMark)
        #expect(keymap.command(for: .character("t")) == nil, "mark has only the keys the file gave it")
        #expect(keymap.keys(for: .next) == [.character("n"), .right])
        #expect(keymap.label(for: .trash) == "D Del")
        // An empty list unbinds; Esc and Ctrl-C still mean what they always do.
        let unbound = try Keymap.standard.applying([.init(action: "quit", keys: [])])
        #expect(unbound.command(for: .character("q")) == nil)
        #expect(unbound.command(for: .escape) == .dismiss)
        #expect(unbound.command(for: .interrupt) == .quit)
        // A digit bound to an action is that action; unbound digits go to a tab.
        let digit = try Keymap.standard.applying([.init(action: "slideshow", keys: ["5"])])
        #expect(digit.command(for: .character("5")) == .toggleSlideshow)
        #expect(digit.command(for: .character("4")) == .jump(3))
    }

    @Test func aBadBindingSaysWhichLineAndWhy() {
        func problem(_ bindings: [Keymap.Binding]) -> Keymap.Problem? {
            do {
                _ = try Keymap.standard.applying(bindings)
                return nil
            } catch {
                return error
            }
        }
        #expect(
            problem([.init(action: "nxt", keys: ["n"], line: 7)])
                == .init(line: 7, message: "unknown action \"nxt\" (did you mean \"next\"?)"))
        #expect(problem([.init(action: "next", keys: ["Ctrl-N"], line: 2)])?.message.contains("\"Ctrl-N\" is not a key") == true)
        #expect(
            problem([.init(action: "quit", keys: ["Escape"], line: 2)])?.message
                == "quit: Escape cannot be bound (it always means the same)")
        #expect(problem([.init(action: "quit", keys: ["C-c"], line: 2)]) != nil)
        let twice = problem([.init(action: "next", keys: ["n"], line: 2), .init(action: "previous", keys: ["n"], line: 5)])
        #expect(twice == .init(line: 5, message: "n is bound to both next on line 2 and previous"))
    }
}
