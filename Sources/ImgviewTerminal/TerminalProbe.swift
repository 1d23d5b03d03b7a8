import ImgviewImaging
import ImgviewSupport
import ImgviewTerminalDetection

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Finds out what the terminal can draw: reads the environment, asks the controlling terminal
/// the one batched query (only when there is one), and asks tmux about itself when inside it.
public enum TerminalProbe {
    /// The profile `auto` and `imgview terminal` go by.
    ///
    /// `askTerminal` false skips the query (output is not going to the terminal, so its
    /// answers would not matter); `asksOuterTerminal` false asks only tmux, never the terminal
    /// outside it through passthrough.
    public static func profile(
        environment: [String: String] = ProcessInfo.processInfo.environment, askTerminal: Bool = true, asksOuterTerminal: Bool = true,
        timeout: Duration = TerminalQuery.defaultTimeout
    ) -> TerminalProfile {
        let variables = TerminalEnvironment(environment)
        let tmux = variables.multiplexer == .tmux ? tmuxFacts(pane: environment["TMUX_PANE"]) : nil
        guard askTerminal else {
            return TerminalDetector(environment: variables, query: nil, noQueryReason: "output is not a terminal", tmux: tmux).profile()
        }
        let terminal: ControllingTerminal
        do {
            terminal = try ControllingTerminal()
        } catch {
            return TerminalDetector(environment: variables, query: nil, noQueryReason: error.rawValue, tmux: tmux).profile()
        }
        let question = variables.multiplexer == .tmux ? TerminalQuery.tmuxBytes : TerminalQuery.bytes
        let outcome = TerminalQuery.run(on: terminal, bytes: question, timeout: timeout)
        // The outer terminal, through tmux, after tmux's own answers are in (they come first, in order).
        var outer: TerminalReplies?
        if asksOuterTerminal, tmux?.answersReachPane == true, outcome.status == .answered {
            outer = TerminalQuery.run(on: terminal, bytes: TerminalQuery.outerBytes, timeout: timeout).replies
        }
        return TerminalDetector(environment: variables, query: outcome, kernelSize: terminal.kernelSize, tmux: tmux, outer: outer)
            .profile()
    }

    /// tmux's version, the terminal its client runs in, and whether it lets escape sequences through,
    /// for the pane imgview runs in (`-t $TMUX_PANE`: without it tmux answers for its current pane).
    static func tmuxFacts(pane: String?) -> TerminalDetector.TmuxFacts? {
        let format =
            "#{version}\t#{client_termtype}\t#{client_termname}\t#{allow-passthrough}\t#{pane_active}\t#{window_active}\t#{session_attached}\t#{client_termfeatures}"
        guard let described = tmux(["display-message", "-p"] + (pane.map { ["-t", $0] } ?? []) + [format]) else { return nil }
        let fields = described.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        let clientType = fields.count > 1 && !fields[1].isEmpty ? fields[1] : nil
        let clientName = fields.count > 2 && !fields[2].isEmpty ? fields[2] : nil
        // The pane's own value, its window's or the global one, as tmux resolves it: `1` on 3.3, `on` or `all` later.
        let passthrough = fields.count > 3 && ["1", "on", "all"].contains(fields[3])
        // The outer terminal answers into the active pane of its current window, once per client.
        let answersReachPane = passthrough && fields.count > 6 && fields[4] == "1" && fields[5] == "1" && fields[6] == "1"
        return TerminalDetector.TmuxFacts(
            version: fields.first.flatMap { $0.isEmpty ? nil : $0 }, clientTerminal: clientType ?? clientName, clientVersion: clientType,
            allowsPassthrough: passthrough, answersReachPane: answersReachPane,
            clientFeatures: fields.count > 7 && !fields[7].isEmpty ? fields[7].split(separator: ",").map(String.init) : nil)
    }

    /// The value of the tmux server option `name` (`set-clipboard`), or nil outside tmux or when it fails.
    public static func tmuxServerOption(_ name: String) -> String? {
        tmux(["show-options", "-sv", name])
    }

    /// The first line `tmux ARGUMENTS` prints, or nil when it fails or takes more than a second.
    static func tmux(_ arguments: [String]) -> String? {
        tmuxLines(arguments)?.first
    }

    /// The lines `tmux ARGUMENTS` prints, or nil when it fails or takes more than a second.
    static func tmuxLines(_ arguments: [String]) -> [String]? {
        guard
            let process = try? ChildProcess(
                path: "/usr/bin/env", arguments: ["tmux"] + arguments, standardInput: .null, standardOutput: .pipe, standardError: .null)
        else { return nil }
        let deadline = ContinuousClock.now + .seconds(1)
        var status = process.exitStatusIfEnded()
        while status == nil, ContinuousClock.now < deadline {
            usleep(2000)
            status = process.exitStatusIfEnded()
        }
        guard let status else {
            process.send(SIGTERM)
            process.wait()
            return nil
        }
        guard status == 0 else { return nil }
        let text = String(decoding: process.readOutputToEnd(), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}

extension TerminalProbe {
    /// The cell size in pixels the kernel knows for stdout's terminal, when the terminal set it.
    public static func kernelCellPixels() -> CellPixelSize? {
        var size = winsize()
        guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0,
            size.ws_xpixel > 0, size.ws_ypixel > 0
        else { return nil }
        return CellPixelSize.reported(width: Int(size.ws_xpixel) / Int(size.ws_col), height: Int(size.ws_ypixel) / Int(size.ws_row))
    }
}
