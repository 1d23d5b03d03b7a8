extension TerminalColor {
    /// `color` as truecolor, or as its nearest entry in `palette` when there is one.
    init(_ color: LinearColor, palette: XtermPalette?) {
        if let palette {
            self = .indexed(UInt8(palette.indices[palette.nearest(color)]))
        } else {
            self = .rgb(color.rgb)
        }
    }
}
