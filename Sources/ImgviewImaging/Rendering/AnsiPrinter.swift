/// Writes a `CellGrid` as text with ANSI SGR colour escapes, one line per row.
///
/// Colours are sent only when they change, and every line ends with a reset so a preview
/// never leaves its colours on the rest of the terminal.
public struct AnsiPrinter: Sendable {
    public init() {}

    public func text(for grid: CellGrid) -> String {
        var output = ""
        output.reserveCapacity(grid.columns * grid.rows * 4)
        for row in 0..<grid.rows {
            var foreground = TerminalColor.default
            var background = TerminalColor.default
            for column in 0..<grid.columns {
                let cell = grid[column, row]
                var parameters: [String] = []
                if cell.foreground != foreground {
                    parameters.append(Self.parameters(for: cell.foreground, isForeground: true))
                    foreground = cell.foreground
                }
                if cell.background != background {
                    parameters.append(Self.parameters(for: cell.background, isForeground: false))
                    background = cell.background
                }
                if !parameters.isEmpty {
                    output += "\u{1B}[" + parameters.joined(separator: ";") + "m"
                }
                output.append(cell.character)
            }
            if foreground != .default || background != .default {
                output += "\u{1B}[0m"
            }
            output += "\n"
        }
        return output
    }

    /// The SGR parameters that select `color` as the foreground or background (`38;2;R;G;B`, `91`…).
    public static func parameters(for color: TerminalColor, isForeground: Bool) -> String {
        switch color {
        case .default:
            return isForeground ? "39" : "49"
        case .indexed(let index) where index < 8:
            return String((isForeground ? 30 : 40) + Int(index))
        case .indexed(let index) where index < 16:
            return String((isForeground ? 90 : 100) + Int(index) - 8)
        case .indexed(let index):
            return (isForeground ? "38;5;" : "48;5;") + String(index)
        case .rgb(let rgb):
            return (isForeground ? "38;2;" : "48;2;") + "\(rgb.red);\(rgb.green);\(rgb.blue)"
        }
    }
}
