import ImgviewImaging

/// What imgview found out about the terminal, and why: the answer to `imgview terminal` and
/// what `auto` goes by.
public struct TerminalProfile: Sendable, Equatable {
    /// One graphics protocol: whether it can be used here, and what said so.
    public struct Support: Sendable, Equatable {
        public var graphics: GraphicsProtocol
        public var isAvailable: Bool
        public var reason: String
    }

    /// How the query went, for the report.
    public struct Query: Sendable, Equatable {
        public var status: String
        public var milliseconds: Double?
        public var reason: String
    }

    /// The terminal's name and what named it (XTVERSION or a variable); nil when unknown.
    public var terminal: String?
    public var terminalEvidence: String?
    /// Every protocol, in the order `auto` prefers them.
    public var graphics: [Support]
    public var colors: ColorMode
    public var colorsReason: String
    public var cellPixels: CellPixelSize
    public var cellPixelsSource: String
    public var multiplexer: String?
    /// Whether graphics must be wrapped for tmux (`allow-passthrough` is on).
    public var passthrough: Bool
    public var isRemote: Bool
    public var synchronizedOutput: Bool
    public var background: RGBColor?
    public var colorRegisters: Int?
    /// The block characters `auto` draws with (halves and quadrants, or sextants too), and why.
    public var symbols: BlockSymbols
    public var symbolsReason: String
    public var query: Query
    /// The mode `auto` picks, and why.
    public var autoMode: PreviewMode
    public var autoReason: String
    /// What the user can change to get pixels (tmux settings, …).
    public var advice: [String]
    /// Inside tmux 3.4 or later built with sixel: tmux draws sixel itself, so sixel is written plain
    /// (never passed through), in whole cells of tmux's size.
    public var tmuxDrawsSixel: Bool = false
    /// Inside tmux, kitty images are shown by Unicode placeholders (text tmux keeps), not placed
    /// through passthrough: the terminal outside answered that it has them.
    public var kittyPlaceholders: Bool = false

    /// The protocols that can be used here, best first.
    public var availableGraphics: [GraphicsProtocol] { graphics.filter(\.isAvailable).map(\.graphics) }

    /// The modes `m` cycles through in the browser: the available graphics, then the text modes.
    public var availableModes: [PreviewMode] {
        availableGraphics.map(PreviewMode.init) + (colors == .none ? [.ascii, .blocks] : [.blocks, .ascii])
    }
}
