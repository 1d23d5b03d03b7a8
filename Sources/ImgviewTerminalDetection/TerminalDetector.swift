import ImgviewImaging

/// Works out a `TerminalProfile` from the environment, the query's answers and what the kernel
/// and tmux said. Pure: every input is a value, so each rule has a unit test.
public struct TerminalDetector: Sendable {
    /// What tmux says about itself and the terminal it runs in (`tmux display-message`, `show-options`).
    public struct TmuxFacts: Sendable, Equatable {
        public var version: String?
        /// The outer terminal's XTVERSION as tmux saw it (`#{client_termtype}`), else its TERM (`#{client_termname}`).
        public var clientTerminal: String?
        /// The outer terminal's XTVERSION alone (`#{client_termtype}`): an answer, where the TERM is a name.
        public var clientVersion: String?
        public var allowsPassthrough: Bool
        /// Whether the outer terminal's answers come back to this pane: passthrough on, and the pane
        /// the active one of the current window of the session's one client.
        public var answersReachPane: Bool
        /// What tmux found its client's terminal can do (`#{client_termfeatures}`: `RGB`, `sixel`, …);
        /// nil when it did not say.
        public var clientFeatures: [String]?

        public init(
            version: String?, clientTerminal: String?, clientVersion: String? = nil, allowsPassthrough: Bool,
            answersReachPane: Bool = false,
            clientFeatures: [String]? = nil
        ) {
            self.version = version
            self.clientTerminal = clientTerminal
            self.clientVersion = clientVersion
            self.allowsPassthrough = allowsPassthrough
            self.answersReachPane = answersReachPane
            self.clientFeatures = clientFeatures
        }
    }

    public var environment: TerminalEnvironment
    /// nil when no query was sent (no terminal), with `noQueryReason` saying why.
    public var query: TerminalQueryOutcome?
    public var noQueryReason: String
    /// The terminal's size in cells and pixels from TIOCGWINSZ (pixels 0 when it does not say).
    public var kernelSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)?
    public var tmux: TmuxFacts?
    /// Inside tmux, what the terminal outside it answered through passthrough (nil when not asked).
    public var outer: TerminalReplies?

    public init(
        environment: TerminalEnvironment, query: TerminalQueryOutcome?, noQueryReason: String = "no terminal",
        kernelSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? = nil, tmux: TmuxFacts? = nil,
        outer: TerminalReplies? = nil
    ) {
        self.environment = environment
        self.query = query
        self.noQueryReason = noQueryReason
        self.kernelSize = kernelSize
        self.tmux = tmux
        self.outer = outer
    }

    public func profile() -> TerminalProfile {
        let replies = query?.replies ?? TerminalReplies()
        let answered = query?.status == .answered
        let multiplexer = environment.multiplexer
        let (terminal, evidence) = identify(replies: replies)
        let passthrough = multiplexer == .tmux && (tmux?.allowsPassthrough ?? false)
        let tmuxSixel = tmuxDrawsSixel(replies: replies)
        var graphics = GraphicsProtocol.allCases.map { support(for: $0, terminal: terminal, evidence: evidence, replies: replies) }
        var advice: [String] = []
        if multiplexer == .tmux, !passthrough {
            // tmux's own sixel needs no passthrough.
            let wanted = graphics.filter { $0.isAvailable && !($0.graphics == .sixel && tmuxSixel) }
            if !wanted.isEmpty || (terminal != nil && !tmuxSixel) {
                advice.append("tmux keeps images from the terminal: add `set -g allow-passthrough on` to ~/.tmux.conf (tmux 3.3 or later)")
            }
            graphics = graphics.map { support in
                guard support.isAvailable, !(support.graphics == .sixel && tmuxSixel) else { return support }
                return TerminalProfile.Support(
                    graphics: support.graphics, isAvailable: false, reason: support.reason + ", but tmux's allow-passthrough is off")
            }
        }
        if multiplexer == .screen {
            graphics = graphics.map {
                TerminalProfile.Support(graphics: $0.graphics, isAvailable: false, reason: "GNU screen passes no graphics")
            }
        }
        let kitty = graphics.first { $0.graphics == .kitty }
        let (placeholders, placeholdersReason) = kittyPlaceholders(kittyAvailable: kitty?.isAvailable == true, passthrough: passthrough)
        if let placeholdersReason, let index = graphics.firstIndex(where: { $0.graphics == .kitty }) {
            graphics[index].reason += "; " + placeholdersReason
        }
        let colors = colorMode(terminal: terminal)
        let (cell, cellSource) = cellPixels(replies: replies)
        let (symbols, symbolsReason) = blockSymbols(replies: replies)
        let available = graphics.filter(\.isAvailable)
        let autoMode: PreviewMode
        let autoReason: String
        if let best = available.first {
            autoMode = PreviewMode(best.graphics)
            autoReason = best.reason
        } else {
            autoMode = colors.0 == .none ? .ascii : .blocks
            let why =
                query == nil
                ? noQueryReason
                : answered ? "no graphics protocol found" : "the terminal did not answer within \(Self.milliseconds(query!.elapsed)) ms"
            autoReason = why + (colors.0 == .none ? "; no colours" : "; colours: \(colors.0.rawValue)")
        }
        return TerminalProfile(
            terminal: terminal?.name, terminalEvidence: evidence, graphics: graphics, colors: colors.0, colorsReason: colors.1,
            cellPixels: cell, cellPixelsSource: cellSource,
            multiplexer: multiplexer.map { mux in [mux.rawValue, tmux?.version].compactMap { $0 }.joined(separator: " ") },
            passthrough: passthrough, isRemote: environment.isRemote,
            synchronizedOutput: multiplexer == nil && replies.hasSynchronizedOutput, background: replies.background,
            colorRegisters: replies.colorRegisters, symbols: symbols, symbolsReason: symbolsReason, query: queryReport(),
            autoMode: autoMode, autoReason: autoReason, advice: advice, tmuxDrawsSixel: tmuxSixel, kittyPlaceholders: placeholders)
    }

    /// Whether tmux draws sixel itself (3.4 and later, built with it): its own DA1, asked of it
    /// unwrapped, lists 4, and it found that its client's terminal draws sixel too
    /// (`#{client_termfeatures}`; without that it draws a box of text in the image's place).
    private func tmuxDrawsSixel(replies: TerminalReplies) -> Bool {
        guard environment.multiplexer == .tmux, query?.status == .answered, replies.deviceAttributes?.contains(4) == true else {
            return false
        }
        return tmux?.clientFeatures?.contains("sixel") == true
    }

    /// The terminal being drawn on: the query's XTVERSION, then tmux's view of its client, then
    /// the environment (locally, or `LC_TERMINAL` over ssh).
    private func identify(replies: TerminalReplies) -> ((known: KnownTerminal?, name: String)?, String?) {
        if environment.multiplexer == nil, let version = replies.version {
            return ((KnownTerminal(version: version), version), "XTVERSION")
        }
        if environment.multiplexer == .tmux, let version = outer?.version {
            return ((KnownTerminal(version: version), version), "XTVERSION through tmux")
        }
        if environment.multiplexer == .tmux, let client = tmux?.clientTerminal, let known = KnownTerminal(version: client) {
            return ((known, client), "tmux's client")
        }
        if let named = environment.namedTerminal, !environment.isRemote || environment.namesTerminalAcrossSSH {
            return ((named.terminal, named.terminal.displayName), named.evidence)
        }
        return (nil, nil)
    }

    private func support(
        for graphics: GraphicsProtocol, terminal: (known: KnownTerminal?, name: String)?, evidence: String?, replies: TerminalReplies
    ) -> TerminalProfile.Support {
        func result(_ available: Bool, _ reason: String) -> TerminalProfile.Support {
            TerminalProfile.Support(graphics: graphics, isAvailable: available, reason: reason)
        }
        guard let query else { return result(false, noQueryReason) }
        let insideTmux = environment.multiplexer == .tmux
        let named = terminal?.known.map { $0.protocols.contains(graphics) } ?? false
        let namedReason = "\(terminal?.name ?? "") (\(evidence ?? "")) draws it"
        if insideTmux {
            // tmux answers the query itself: only its sixel support (a build option) shows in DA1.
            if graphics == .sixel, tmuxDrawsSixel(replies: replies) {
                return result(true, "tmux draws sixel itself (its DA1 lists 4, and its client's terminal has sixel)")
            }
            if graphics == .sixel, replies.deviceAttributes?.contains(4) == true, !named {
                return result(false, "tmux draws sixel (its DA1 lists 4), but not to this terminal (client_termfeatures has no sixel)")
            }
            if graphics == .kitty, outer?.kittyGraphics == "OK" {
                return result(true, "the terminal outside tmux answered the kitty graphics query, through tmux")
            }
            return named ? result(true, namedReason + ", through tmux") : result(false, "not known for the terminal outside tmux")
        }
        guard query.status == .answered else {
            return result(false, "the terminal did not answer within \(Self.milliseconds(query.elapsed)) ms")
        }
        switch graphics {
        case .kitty:
            if replies.kittyGraphics == "OK" { return result(true, "the terminal answered the kitty graphics query") }
            if let error = replies.kittyGraphics { return result(false, "the kitty graphics query failed: \(error)") }
            return result(false, "no answer to the kitty graphics query")
        case .sixel:
            if replies.deviceAttributes?.contains(4) == true { return result(true, "DA1 lists 4 (sixel)") }
            return result(false, "DA1 does not list 4 (sixel)")
        case .iterm:
            // No query tells; the terminal's name does.
            return named ? result(true, namedReason) : result(false, "no terminal known to draw it was found")
        }
    }

    private func colorMode(terminal: (known: KnownTerminal?, name: String)?) -> (ColorMode, String) {
        let detected = ColorMode.detect(environment: environment.variables)
        if detected == .none { return (.none, environment.variables["NO_COLOR"].map { _ in "NO_COLOR is set" } ?? "TERM has no colours") }
        if detected == .full { return (.full, "COLORTERM=\(environment.variables["COLORTERM"] ?? "")") }
        if let known = terminal?.known, known.hasTruecolor {
            return (.full, "\(terminal!.name) shows 24-bit colour")
        }
        return (detected, "TERM=\(environment.term)")
    }

    private func cellPixels(replies: TerminalReplies) -> (CellPixelSize, String) {
        // tmux 3.4 and later answer for the cell size their grid is in (an image's cells are
        // counted in it), which the pane's TIOCGWINSZ need not say.
        if environment.multiplexer == .tmux, let cell = replies.cellPixels { return (cell, "CSI 16 t, tmux's") }
        if let size = kernelSize, size.pixelWidth > 0, size.pixelHeight > 0, size.columns > 0, size.rows > 0 {
            return (CellPixelSize.reported(width: size.pixelWidth / size.columns, height: size.pixelHeight / size.rows), "TIOCGWINSZ")
        }
        if environment.multiplexer == nil, let cell = replies.cellPixels { return (cell, "CSI 16 t") }
        if environment.multiplexer == nil, let area = replies.textAreaPixels, let size = kernelSize, size.columns > 0, size.rows > 0 {
            return (CellPixelSize.reported(width: area.width / size.columns, height: area.height / size.rows), "CSI 14 t")
        }
        return (.fallback, "assumed (the terminal did not say)")
    }

    private func queryReport() -> TerminalProfile.Query {
        guard let query else { return TerminalProfile.Query(status: "not sent", milliseconds: nil, reason: noQueryReason) }
        let milliseconds = Self.milliseconds(query.elapsed)
        switch query.status {
        case .answered:
            return TerminalProfile.Query(status: "answered", milliseconds: milliseconds, reason: "DA1 arrived")
        case .timedOut:
            return TerminalProfile.Query(status: "timed out", milliseconds: milliseconds, reason: "no DA1 before the deadline")
        case .notSent:
            return TerminalProfile.Query(status: "not sent", milliseconds: nil, reason: "the terminal could not be written to")
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}
