/// What the presenter draws on: the ncurses screen in the app, a spy in tests.
@MainActor
public protocol BrowserView: AnyObject {
    /// Shows `state`; called after every change, never twice for the same state in a row.
    func display(_ state: BrowserState)
}
