import ImgviewImaging

/// What a full-screen program's pixel previews need from the terminal: the cell size the pixels
/// are scaled for, the background transparency is composed over, the sixel registers, tmux's
/// passthrough, and whether the terminal can hold a frame back until it is whole (synchronized
/// output, DEC mode 2026).
public struct GraphicsTerminal: Sendable, Equatable {
    /// The kitty image id of the browser's pane: one image at a time, replaced and deleted by it.
    /// Not 1, which `show` and other programs use first.
    public static let paneImageID: UInt32 = 0x696D_6776

    public var cell: CellPixelSize
    public var background: RGBColor
    public var colorRegisters: Int
    public var passthrough: Bool
    public var synchronizedOutput: Bool
    /// tmux draws sixel itself (3.4 and later): sixel is written plain, in whole cells.
    public var tmuxDrawsSixel: Bool
    /// Inside tmux, kitty images are shown by Unicode placeholders (`KittyPlaceholders`).
    public var kittyPlaceholders: Bool

    public init(
        cell: CellPixelSize = .fallback, background: RGBColor = RGBColor(red: 0, green: 0, blue: 0), colorRegisters: Int = 256,
        passthrough: Bool = false, synchronizedOutput: Bool = false, tmuxDrawsSixel: Bool = false, kittyPlaceholders: Bool = false
    ) {
        self.cell = cell
        self.background = background
        self.colorRegisters = colorRegisters
        self.passthrough = passthrough
        self.synchronizedOutput = synchronizedOutput
        self.tmuxDrawsSixel = tmuxDrawsSixel
        self.kittyPlaceholders = kittyPlaceholders
    }

    /// What detection found (the background black where the terminal did not say).
    public init(profile: TerminalProfile) {
        self.init(
            cell: profile.cellPixels, background: profile.background ?? RGBColor(red: 0, green: 0, blue: 0),
            colorRegisters: profile.colorRegisters ?? 256, passthrough: profile.passthrough,
            synchronizedOutput: profile.synchronizedOutput, tmuxDrawsSixel: profile.tmuxDrawsSixel,
            kittyPlaceholders: profile.kittyPlaceholders)
    }

    /// The render options of a pixel preview in the pane's box: the pane's image id, and the
    /// cursor left where it was (the program keeps drawing around the image).
    public func paneOptions(_ graphics: GraphicsProtocol, columns: Int, rows: Int) -> GraphicsOptions {
        let tmuxSixel = graphics == .sixel && tmuxDrawsSixel
        return GraphicsOptions(
            graphics: graphics, columns: columns, rows: rows, cell: cell, background: background, colorRegisters: colorRegisters,
            passthrough: passthrough && !tmuxSixel, imageID: Self.paneImageID, movesCursor: false, wholeCells: tmuxSixel,
            kittyPlaceholders: graphics == .kitty && kittyPlaceholders)
    }
}
