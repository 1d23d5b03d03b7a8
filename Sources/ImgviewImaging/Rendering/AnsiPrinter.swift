import ImgviewSupport

/// Writes a `CellGrid` as text with SGR colours, one line per row.
///
/// Colours are sent only when they change, and every line ends with a reset so a preview
/// never leaves its colours on the rest of the terminal.
public struct AnsiPrinter: Sendable {
    public init() {}

    public func text(for grid: CellGrid) -> String {
        String(decoding: bytes(for: grid), as: UTF8.self)
    }

    public func bytes(for grid: CellGrid) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(grid.columns * grid.rows * 6)
        for row in 0..<grid.rows {
            var foreground = TerminalColor.default
            var background = TerminalColor.default
            for column in 0..<grid.columns {
                let cell = grid[column, row]
                var sgr = SGRWriter()
                if cell.foreground != foreground {
                    sgr.append(.foreground(cell.foreground.sgr), to: &output)
                    foreground = cell.foreground
                }
                if cell.background != background {
                    sgr.append(.background(cell.background.sgr), to: &output)
                    background = cell.background
                }
                sgr.finish(&output)
                output += cell.character.utf8
            }
            if foreground != .default || background != .default {
                output += SGR.reset
            }
            output.append(UInt8(ascii: "\n"))
        }
        return output
    }
}
