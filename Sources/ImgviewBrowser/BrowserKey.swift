/// A key as the terminal reported it, with ncurses' codes already decoded.
public enum BrowserKey: Sendable, Hashable {
    case character(Character)
    case left
    case right
    case up
    case down
    case shiftLeft
    case shiftRight
    case shiftUp
    case shiftDown
    case home
    case end
    case pageUp
    case pageDown
    case tab
    case backTab
    case enter
    case backspace
    case delete
    case escape
    /// Ctrl and a letter (`a`…`z`) other than those with a meaning of their own (C, H, I, J, M, Z).
    case control(Character)
    /// F1…F12.
    case function(Int)
    /// Ctrl-C: the terminal is in raw mode, so it arrives as a key rather than a signal.
    case interrupt
    /// Ctrl-Z, for the same reason: the browser suspends itself.
    case suspend
}

extension BrowserKey {
    /// The key named `name` as a config file or a key-handler writes it: one character (`q`, `+`,
    /// `/`), `C-x` for Ctrl and a letter, or one of `Left Right Up Down S-Left S-Right S-Up S-Down
    /// Home End PageUp PageDown Tab S-Tab Enter Backspace Delete Escape Space F1`…`F12` (case
    /// ignored for these, with `Return`, `Del`, `Esc`, `PgUp` and `PgDn` as other names). Nil
    /// for anything else.
    public init?(name: String) {
        if name.count == 1, let character = name.first {
            guard let key = Self.printable(character) else { return nil }
            self = key
            return
        }
        if name.hasPrefix("C-"), name.count == 3, let letter = name.last?.lowercased().first, letter.isASCII, letter.isLetter {
            guard let key = Self.controlKey(letter) else { return nil }
            self = key
            return
        }
        let lowered = name.lowercased()
        if lowered.hasPrefix("f"), let number = Int(lowered.dropFirst()), (1...12).contains(number), !lowered.hasPrefix("f0") {
            self = .function(number)
            return
        }
        guard let key = Self.named[lowered] else { return nil }
        self = key
    }

    /// How a config file names the key, and what a key-handler is given: `q`, `C-x`, `Left`, `Space`.
    public var name: String {
        switch self {
        case .character(" "): "Space"
        case .character(let character): String(character)
        case .left: "Left"
        case .right: "Right"
        case .up: "Up"
        case .down: "Down"
        case .shiftLeft: "S-Left"
        case .shiftRight: "S-Right"
        case .shiftUp: "S-Up"
        case .shiftDown: "S-Down"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PageUp"
        case .pageDown: "PageDown"
        case .tab: "Tab"
        case .backTab: "S-Tab"
        case .enter: "Enter"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .escape: "Escape"
        case .control(let letter): "C-\(letter)"
        case .function(let number): "F\(number)"
        case .interrupt: "C-c"
        case .suspend: "C-z"
        }
    }

    /// How the help panel and the status line show the key: `←`, `PgUp`, `Del`, `Ctrl-X`.
    public var label: String {
        switch self {
        case .left: "←"
        case .right: "→"
        case .up: "↑"
        case .down: "↓"
        case .shiftLeft: "S-←"
        case .shiftRight: "S-→"
        case .shiftUp: "S-↑"
        case .shiftDown: "S-↓"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .delete: "Del"
        case .control(let letter): "Ctrl-" + letter.uppercased()
        default: name
        }
    }

    /// A printable character as a key; nil for a control character, which reaches the browser as another key.
    private static func printable(_ character: Character) -> BrowserKey? {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else {
            return .character(character)
        }
        return scalar.value < 0x20 || scalar.value == 0x7F ? nil : .character(character)
    }

    /// Ctrl and `letter`, as the terminal sends it: Ctrl-I is Tab, Ctrl-M Enter, and so on.
    static func controlKey(_ letter: Character) -> BrowserKey? {
        switch letter {
        case "c": .interrupt
        case "z": .suspend
        case "h": .backspace
        case "i": .tab
        case "j", "m": .enter
        default: .control(letter)
        }
    }

    private static let named: [String: BrowserKey] = [
        "left": .left, "right": .right, "up": .up, "down": .down, "s-left": .shiftLeft, "s-right": .shiftRight,
        "s-up": .shiftUp, "s-down": .shiftDown, "home": .home, "end": .end, "pageup": .pageUp, "pgup": .pageUp,
        "pagedown": .pageDown, "pgdn": .pageDown, "tab": .tab, "s-tab": .backTab, "enter": .enter, "return": .enter,
        "backspace": .backspace, "delete": .delete, "del": .delete, "escape": .escape, "esc": .escape, "space": .character(" "),
    ]
}
