import ImgviewImaging

/// What a terminal said in answer to the detection query, and what else arrived meanwhile.
public struct TerminalReplies: Sendable, Equatable {
    /// XTVERSION (`DCS > | text ST`), e.g. `kitty(0.26.5)` or `XTerm(379)`.
    public var version: String?
    /// The kitty graphics query's answer: `OK`, or the error the terminal gave.
    public var kittyGraphics: String?
    /// The answer to the same query with a virtual placement (`U=1`): `OK` from a terminal with
    /// Unicode placeholders; kitty before 0.28 does not answer it.
    public var kittyPlaceholders: String?
    /// `CSI 16 t`: one cell in pixels.
    public var cellPixels: CellPixelSize?
    /// `CSI 14 t`: the text area in pixels.
    public var textAreaPixels: (width: Int, height: Int)?
    /// DECRPM for mode 2026 (synchronized output): 1 or 2 mean supported, 0 or 4 not.
    public var synchronizedOutputState: Int?
    /// XTSMGRAPHICS: how many sixel colour registers the terminal has.
    public var colorRegisters: Int?
    /// OSC 11: the terminal's background colour.
    public var background: RGBColor?
    /// DA2 (`CSI > 1 ; 4000 ; 26 c` → [1, 4000, 26]): the terminal's kind, version and options.
    public var secondaryAttributes: [Int]?
    /// DA1's attributes (`CSI ? 62 ; 4 c` → [62, 4]): the end of the answer; 4 means sixel.
    public var deviceAttributes: [Int]?
    /// DSR's answer `CSI 0 n` arrived: the end of the questions passed through tmux.
    public var statusReported = false
    /// Keys the user typed while the query was out (printable text and whole key sequences, at
    /// most `TerminalReplyParser.longestTypeahead` bytes), given back to the terminal's input;
    /// empty when noise came with them.
    public var unclaimed: [UInt8] = []

    public init() {}

    /// Whether DA1 arrived, which every terminal sends last since it answers in order; or, for the
    /// questions passed through tmux (which end with DSR instead), DSR's answer.
    public var isComplete: Bool { deviceAttributes != nil || statusReported }

    public var hasSynchronizedOutput: Bool { synchronizedOutputState == 1 || synchronizedOutputState == 2 }

    public static func == (lhs: TerminalReplies, rhs: TerminalReplies) -> Bool {
        lhs.version == rhs.version && lhs.kittyGraphics == rhs.kittyGraphics && lhs.kittyPlaceholders == rhs.kittyPlaceholders
            && lhs.cellPixels == rhs.cellPixels
            && lhs.textAreaPixels?.width == rhs.textAreaPixels?.width && lhs.textAreaPixels?.height == rhs.textAreaPixels?.height
            && lhs.synchronizedOutputState == rhs.synchronizedOutputState && lhs.colorRegisters == rhs.colorRegisters
            && lhs.background == rhs.background && lhs.secondaryAttributes == rhs.secondaryAttributes
            && lhs.statusReported == rhs.statusReported
            && lhs.deviceAttributes == rhs.deviceAttributes && lhs.unclaimed == rhs.unclaimed
    }
}
