/// What the user can ask the browser to do.
public enum BrowserCommand: Sendable, Equatable {
    case next
    case previous
    /// Select the tab at this index (0-based).
    case jump(Int)
    /// Home and End: the first and the last tab.
    case first
    case last
    /// PgDn and PgUp: as many tabs as the strip shows, forward or back.
    case pageForward
    case pageBack
    /// ↑ and ↓: the row above or below in a panel.
    case lineUp
    case lineDown
    /// `/`: find a tab by name.
    case find
    /// Removes the selected entry of the cache panel.
    case remove
    case reload
    case stop
    case save
    case toggleMode
    case toggleHelp
    case toggleCache
    /// `f`: the preview takes the whole width, the metadata pane is hidden; again to show it.
    case toggleFullWidth
    case zoomIn
    case zoomOut
    /// Back to the whole image, fitted.
    case zoomFit
    /// Moves a zoomed view by a quarter of what shows, left (-1) or right (1), up (-1) or down (1).
    case pan(dx: Int, dy: Int)
    /// `]` and `[`: the next or previous page of a file of several (a scanned TIFF, a HEIF collection).
    case nextPage
    case previousPage
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
    /// Ctrl-C: the terminal is in raw mode, so it arrives as a key rather than a signal.
    case interrupt
    /// Ctrl-Z, for the same reason: the browser suspends itself.
    case suspend
}

extension BrowserCommand {
    /// The command a key means; nil for keys the browser ignores.
    public init?(key: BrowserKey) {
        switch key {
        case .left, .backTab, .character("h"): self = .previous
        case .right, .tab, .character("l"): self = .next
        case .home: self = .first
        case .end: self = .last
        case .pageDown: self = .pageForward
        case .pageUp: self = .pageBack
        case .up: self = .lineUp
        case .down: self = .lineDown
        case .character("/"): self = .find
        case .delete: self = .remove
        case .character("r"): self = .reload
        case .character("x"): self = .stop
        case .character("d"): self = .save
        case .character("m"): self = .toggleMode
        case .character("?"): self = .toggleHelp
        case .character("c"): self = .toggleCache
        case .character("f"): self = .toggleFullWidth
        case .character("+"), .character("="): self = .zoomIn
        case .character("-"): self = .zoomOut
        case .character("0"): self = .zoomFit
        case .shiftLeft, .character("H"): self = .pan(dx: -1, dy: 0)
        case .shiftRight, .character("L"): self = .pan(dx: 1, dy: 0)
        case .shiftUp, .character("K"): self = .pan(dx: 0, dy: -1)
        case .shiftDown, .character("J"): self = .pan(dx: 0, dy: 1)
        case .character("]"): self = .nextPage
        case .character("["): self = .previousPage
        case .character(" "): self = .togglePause
        case .escape: self = .dismiss
        case .character("q"), .interrupt: self = .quit
        case .character(let character):
            guard let digit = character.wholeNumberValue, (1...9).contains(digit), character.isASCII else { return nil }
            self = .jump(digit - 1)
        case .enter, .backspace, .suspend:
            return nil
        }
    }
}
