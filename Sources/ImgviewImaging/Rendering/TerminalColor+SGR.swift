import ImgviewSupport

extension TerminalColor {
    /// The colour as SGR selects it.
    public var sgr: SGR.Color {
        switch self {
        case .default: .default
        case .indexed(let index): .palette(index)
        case .rgb(let rgb): .rgb(red: rgb.red, green: rgb.green, blue: rgb.blue)
        }
    }
}
