import Dispatch
import ImgviewSupport
import ImgviewTerminalDetection
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Follows the tmux pane the browser runs in, for an image passed through tmux: tmux neither
/// places, moves, hides nor redraws it, so whenever tmux draws the pane again or moves it (a
/// window switch and back, a zoom, a split, copy mode, a client attaching) the browser must be
/// told where the pane now is and whether it is shown.
///
/// A control-mode client of the pane's session (`tmux -C attach -f no-output,ignore-size,read-only`):
/// tmux tells it at once of every such change, it receives none of the panes' output, takes no part
/// in sizing windows and can change nothing. Its input is a pipe: it ends when this process does.
/// After each burst of notifications the pane's geometry is asked on the same pipe; the answer
/// comes after tmux has handled everything before it, its redraw of the pane included, so an image
/// drawn then is drawn over what tmux drew, not under it.
@MainActor
public final class TmuxWatcher {
    /// The notifications after which the pane may have moved, been hidden, or been drawn again by tmux.
    static let redrawingNotifications: Set<Substring> = [
        "%session-window-changed", "%session-changed", "%layout-change", "%window-pane-changed", "%pane-mode-changed",
        "%client-session-changed", "%client-detached",
    ]

    private let process: ChildProcess
    private let pane: String
    private let source: any DispatchSourceRead
    private let changed: @MainActor (TmuxPaneGeometry, _ redrawn: Bool) -> Void
    private var received: [UInt8] = []
    /// The lines of a command's answer being read (between `%begin` and `%end`).
    private var answer: [String]?
    /// Questions asked and not yet answered; while one is, another is only noted (`askAgain`).
    private var unanswered = 0
    private var askAgain = false
    /// Whether a notification came since the last geometry reported.
    private var notified = false

    /// Starts watching `pane` (`%3`); nil when tmux cannot be asked or the client cannot start.
    /// `changed` gets the pane's geometry once at first, then after every change, with `redrawn`
    /// true when tmux may have drawn the pane again since the last.
    public init?(pane: String, changed: @escaping @MainActor (TmuxPaneGeometry, _ redrawn: Bool) -> Void) {
        guard let session = TerminalProbe.tmux(["display-message", "-p", "-t", pane, "#{session_id}"]), session.hasPrefix("$"),
            let process = try? ChildProcess(
                path: "/usr/bin/env", arguments: ["tmux", "-C", "attach-session", "-t", session, "-f", "no-output,ignore-size,read-only"],
                standardInput: .pipe, standardOutput: .pipe, standardError: .null),
            let output = process.output
        else { return nil }
        self.process = process
        self.pane = pane
        self.changed = changed
        source = DispatchSource.makeReadSource(fileDescriptor: output.rawValue, queue: .main)
        source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.readOutput() } }
        source.resume()
        ask()
    }

    /// Ends the control client (its input closed, then SIGTERM should it linger) and reaps it.
    public func stop() {
        guard !source.isCancelled else { return }
        source.cancel()
        process.closeInput()
        process.send(SIGTERM)
        process.wait()
    }

    /// Asks the pane's geometry, one question at a time.
    private func ask() {
        guard unanswered == 0 else {
            askAgain = true
            return
        }
        let command = Array("display-message -p -t \(pane) '\(TmuxPaneGeometry.format)'\n".utf8)
        // Fails when the client is gone (SIGPIPE is ignored: EPIPE).
        guard let input = process.input, (try? input.writeAll(command)) != nil else { return stop() }
        unanswered += 1
    }

    private func readOutput() {
        guard let output = process.output else { return stop() }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count: Int
        do {
            count = try chunk.withUnsafeMutableBytes { try output.read(into: $0) }
        } catch {
            // Nothing to read after all: the source calls again when there is.
            if (error as? Errno)?.isWouldBlock == true { return }
            return stop()
        }
        guard count > 0 else { return stop() }
        received += chunk[..<count]
        while let newline = received.firstIndex(of: 0x0A) {
            let line = String(decoding: received[..<newline], as: UTF8.self)
            received.removeSubrange(...newline)
            handle(line)
        }
    }

    /// One line of the control protocol: a command's answer (`%begin` … `%end` or `%error`) or a notification.
    private func handle(_ line: String) {
        if var lines = answer {
            if line.hasPrefix("%end ") || line.hasPrefix("%error ") {
                answer = nil
                // An empty answer is the attach command's own, not one of ours (display always prints a line).
                guard line.hasPrefix("%error ") || !lines.isEmpty else { return }
                answered(lines.first.flatMap(TmuxPaneGeometry.init(formatAnswer:)))
            } else {
                lines.append(line)
                answer = lines
            }
            return
        }
        if line.hasPrefix("%begin ") {
            answer = []
        } else if line.hasPrefix("%exit") {
            stop()
        } else if Self.redrawingNotifications.contains(line.prefix { $0 != " " }) {
            notified = true
            ask()
        }
    }

    private func answered(_ geometry: TmuxPaneGeometry?) {
        unanswered = max(0, unanswered - 1)
        if askAgain {
            askAgain = false
            return ask()
        }
        guard let geometry else { return }
        let redrawn = notified
        notified = false
        changed(geometry, redrawn)
    }
}
