import ImgviewImaging

/// What the environment variables say about the terminal: its name, multiplexers, ssh.
///
/// Hints only: a variable can be inherited from another terminal (a tmux server started in
/// kitty, then attached from xterm), so the query's answers win where there are any.
public struct TerminalEnvironment: Sendable {
    public var variables: [String: String]

    public init(_ variables: [String: String]) {
        self.variables = variables
    }

    private func value(_ name: String) -> String? {
        guard let value = variables[name], !value.isEmpty else { return nil }
        return value
    }

    public var term: String { value("TERM") ?? "" }

    /// tmux or GNU screen, when the program runs inside one.
    public var multiplexer: Multiplexer? {
        if value("TMUX") != nil || value("TERM_PROGRAM") == "tmux" { return .tmux }
        if value("STY") != nil || term.hasPrefix("screen") { return .screen }
        return nil
    }

    /// Whether the program runs over ssh, so the terminal's own variables did not come along.
    public var isRemote: Bool {
        value("SSH_CONNECTION") != nil || value("SSH_CLIENT") != nil || value("SSH_TTY") != nil
    }

    /// A terminal the environment names, with the variable that names it.
    public var namedTerminal: (terminal: KnownTerminal, evidence: String)? {
        let checks: [(KnownTerminal, String, (TerminalEnvironment) -> Bool)] = [
            (.kitty, "KITTY_WINDOW_ID", { $0.value("KITTY_WINDOW_ID") != nil }),
            (.kitty, "TERM=xterm-kitty", { $0.term == "xterm-kitty" }),
            (.ghostty, "TERM=xterm-ghostty", { $0.term == "xterm-ghostty" }),
            (.ghostty, "TERM_PROGRAM=ghostty", { $0.value("TERM_PROGRAM") == "ghostty" }),
            (.wezterm, "TERM_PROGRAM=WezTerm", { $0.value("TERM_PROGRAM") == "WezTerm" }),
            (.wezterm, "WEZTERM_EXECUTABLE", { $0.value("WEZTERM_EXECUTABLE") != nil || $0.value("WEZTERM_PANE") != nil }),
            (.iterm2, "TERM_PROGRAM=iTerm.app", { $0.value("TERM_PROGRAM") == "iTerm.app" }),
            (.iterm2, "LC_TERMINAL=iTerm2", { $0.value("LC_TERMINAL") == "iTerm2" }),
            (.mlterm, "MLTERM", { $0.value("MLTERM") != nil }),
            (.mlterm, "TERM=mlterm", { $0.term.hasPrefix("mlterm") }),
            (.foot, "TERM=foot", { $0.term.hasPrefix("foot") }),
            (.konsole, "KONSOLE_VERSION", { $0.value("KONSOLE_VERSION") != nil }),
            (.vte, "VTE_VERSION", { $0.value("VTE_VERSION") != nil }),
            (.xterm, "XTERM_VERSION", { $0.value("XTERM_VERSION") != nil }),
        ]
        for (terminal, evidence, check) in checks where check(self) { return (terminal, evidence) }
        return nil
    }

    /// Whether `LC_TERMINAL` names the terminal: ssh passes `LC_*` on by default, so this one
    /// hint survives a remote login.
    public var namesTerminalAcrossSSH: Bool { value("LC_TERMINAL") != nil }
}

/// A terminal multiplexer between the program and the terminal.
public enum Multiplexer: String, Sendable {
    case tmux
    case screen
}

/// Terminals whose graphics support is known from their name.
public enum KnownTerminal: String, Sendable, CaseIterable {
    case kitty, ghostty, wezterm, iterm2, mlterm, foot, konsole, vte, xterm

    /// How `imgview terminal` names it.
    public var displayName: String {
        switch self {
        case .kitty: "kitty"
        case .ghostty: "Ghostty"
        case .wezterm: "WezTerm"
        case .iterm2: "iTerm2"
        case .mlterm: "mlterm"
        case .foot: "foot"
        case .konsole: "Konsole"
        case .vte: "a VTE terminal"
        case .xterm: "xterm"
        }
    }

    /// The protocols it draws for certain (sixel is also asked of DA1, which wins).
    public var protocols: Set<GraphicsProtocol> {
        switch self {
        case .kitty, .ghostty: [.kitty]
        case .wezterm: [.iterm, .sixel]
        case .iterm2: [.iterm]
        case .mlterm: [.iterm, .sixel]
        case .foot: [.sixel]
        case .konsole: [.iterm, .sixel]
        case .vte, .xterm: []
        }
    }

    /// Whether it shows 24-bit colour whether or not `COLORTERM` says so.
    public var hasTruecolor: Bool { self != .xterm }

    /// The terminal an XTVERSION answer names (`kitty(0.26.5)`, `WezTerm 20240203…`, `XTerm(379)`).
    public init?(version: String) {
        let lowered = version.lowercased()
        let prefixes: [(String, KnownTerminal)] = [
            ("kitty", .kitty), ("ghostty", .ghostty), ("wezterm", .wezterm), ("iterm2", .iterm2), ("mlterm", .mlterm),
            ("foot", .foot), ("konsole", .konsole), ("vte", .vte), ("xterm", .xterm),
        ]
        guard let match = prefixes.first(where: { lowered.hasPrefix($0.0) }) else { return nil }
        self = match.1
    }
}
