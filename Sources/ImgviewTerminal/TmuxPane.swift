import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The tmux pane imgview runs in, asked where its cursor is in the outer terminal: where an image
/// passed through to that terminal must be put.
public enum TmuxPane {
    /// The outer terminal's cell (1-based) under the pane's cursor; nil outside tmux or when tmux
    /// or the terminal does not say. The cursor comes from a report tmux answers in order with what
    /// was written before it, so it is where the output so far left it.
    public static func outerCursor(environment: [String: String]) -> (row: Int, column: Int)? {
        guard let pane = environment["TMUX_PANE"], !pane.isEmpty,
            let answer = TerminalProbe.tmux(["display-message", "-p", "-t", pane, TmuxPaneOrigin.format]),
            let origin = TmuxPaneOrigin(formatAnswer: answer), let cursor = cursorPosition()
        else { return nil }
        return origin.outer(row: cursor.row, column: cursor.column)
    }

    /// Asks the terminal (here tmux) where the cursor is; keys typed meanwhile are given back.
    static func cursorPosition(timeout: Duration = TerminalQuery.defaultTimeout) -> CursorPositionReply? {
        guard let terminal = try? ControllingTerminal(), terminal.write(CursorPositionReply.query) else { return nil }
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        while ContinuousClock.now < deadline {
            let bytes = terminal.read(timeout: ContinuousClock.now.duration(to: deadline))
            if bytes.isEmpty { break }
            received += bytes
            let (reply, rest) = CursorPositionReply.find(in: received)
            if let reply {
                terminal.giveBack(rest)
                return reply
            }
        }
        terminal.giveBack(received)
        return nil
    }
}
