/// What the user can ask the browser to do.
public enum BrowserCommand: Sendable, Equatable {
    case next
    case previous
    /// Select the tab at this index (0-based).
    case jump(Int)
    case reload
    case stop
    case save
    case toggleMode
    case toggleHelp
    case toggleCache
    /// Space: pause or play the animation on screen.
    case togglePause
    /// Esc: closes a panel, or quits when none is open.
    case dismiss
    case quit
}

/// A key as the terminal reported it, with ncurses' codes already decoded.
public enum BrowserKey: Sendable, Equatable {
    case character(Character)
    case left
    case right
    case up
    case down
    case tab
    case backTab
    case escape
    /// Ctrl-C: the terminal is in raw mode, so it arrives as a key rather than a signal.
    case interrupt
}

extension BrowserCommand {
    /// The command a key means; nil for keys the browser ignores.
    public init?(key: BrowserKey) {
        switch key {
        case .left, .backTab, .character("h"): self = .previous
        case .right, .tab, .character("l"): self = .next
        case .character("r"): self = .reload
        case .character("x"): self = .stop
        case .character("d"): self = .save
        case .character("m"): self = .toggleMode
        case .character("?"): self = .toggleHelp
        case .character("c"): self = .toggleCache
        case .character(" "): self = .togglePause
        case .escape: self = .dismiss
        case .character("q"), .interrupt: self = .quit
        case .character(let character):
            guard let digit = character.wholeNumberValue, (1...9).contains(digit), character.isASCII else { return nil }
            self = .jump(digit - 1)
        case .up, .down:
            return nil
        }
    }
}
