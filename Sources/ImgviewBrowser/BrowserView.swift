/// What the presenter draws on: the ncurses screen in the app, a spy in tests.
@MainActor
public protocol BrowserView: AnyObject {
    /// Shows `state`; called after every change, never twice for the same state in a row.
    func display(_ state: BrowserState)

    /// Writes `sequence` to the terminal as it is, after what is drawn: a request the terminal
    /// acts on rather than shows (OSC 52 puts text on the clipboard).
    func write(_ sequence: [UInt8])
}
