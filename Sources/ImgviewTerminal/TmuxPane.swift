import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
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

    /// Where `pane` (`%3`) is in the outer terminal and whether it is shown; nil when tmux does not say.
    public static func geometry(of pane: String) -> TmuxPaneGeometry? {
        TerminalProbe.tmux(["display-message", "-p", "-t", pane, TmuxPaneGeometry.format]).flatMap(TmuxPaneGeometry.init(formatAnswer:))
    }

    /// Writes `bytes` straight to the terminal of every client attached to `pane`'s session,
    /// past tmux: the one way to reach the outer terminal from a pane tmux does not show, whose
    /// passthrough it drops (a kitty image deleted when its window is switched away from). A few
    /// bytes, written at once, so they are unlikely to land inside tmux's own output.
    static func writeToClients(of pane: String, _ bytes: [UInt8]) {
        let clients = TerminalProbe.tmuxLines(["list-clients", "-t", pane, "-F", "#{client_control_mode} #{client_tty}"]) ?? []
        for client in clients where client.hasPrefix("0 /dev/") {
            let descriptor = open(String(client.dropFirst(2)), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
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
