/// A line the user is typing in the status line: a tab's name to find (`/`), or a tab's number.
///
/// The selection follows as the text changes; Enter keeps it, Esc goes back to where the prompt
/// opened.
public struct BrowserPrompt: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `/`: the first tab whose name contains the text, ignoring case.
        case find
        /// Digits: the tab with that number, counting from 1.
        case goTo
    }

    public var kind: Kind
    public var text: String
    /// The tab selected when the prompt opened: where Esc goes back to, and where a search starts.
    public var origin: Int
    /// Whether the text names no tab.
    public var hasNoMatch = false

    public init(kind: Kind, text: String = "", origin: Int) {
        self.kind = kind
        self.text = text
        self.origin = origin
    }

    /// The tab number typed so far with `digit` after it; a number past the last tab starts again
    /// from the digit, so in a 40-tab catalog `4` `5` is tab 5 and `1` `2` is tab 12.
    public static func goToText(_ text: String, typing digit: Int, tabCount: Int) -> String {
        let longer = text + String(digit)
        if let number = Int(longer), (1...max(1, tabCount)).contains(number) { return longer }
        return digit == 0 ? text : String(digit)
    }

    /// What the status line shows: the prompt and its text.
    public var line: String {
        switch kind {
        case .find: "/" + text + (hasNoMatch ? "   (no tab's name contains this)" : "")
        case .goTo: "go to tab " + text + (hasNoMatch ? "   (no such tab)" : "") + "   Enter: done  Esc: back"
        }
    }
}
