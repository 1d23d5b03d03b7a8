import ImgviewImaging
import ImgviewSupport

/// The bytes that draw cells in place, for the browser's cells that ncurses cannot colour itself.
///
/// Cells are added in screen order; neighbours on a row share one cursor move, and colours are
/// sent only when they change from the cell before (after a full reset whenever the style
/// changes), so a picture of 12,000 cells costs about what `show` prints for it. The cursor
/// and attributes are saved before and restored after (DECSC/DECRC), so ncurses' idea of both
/// stays true.
public struct DirectCellText: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Where the terminal's cursor is after the last cell written, when known.
    private var cursor: (column: Int, row: Int)?
    /// The attributes in force after the last cell; nil before the first, when nothing is known.
    private var style: TextStyle?
    private var foreground = TerminalColor.default
    private var background = TerminalColor.default

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
        bytes += [0x1B, UInt8(ascii: "7")]
    }

    /// Adds `cell`, to be drawn at `column`, `row` (zero-based).
    public mutating func append(_ cell: StyledCell, column: Int, row: Int) {
        if cursor.map({ $0 != (column, row) }) ?? true {
            bytes += [0x1B, UInt8(ascii: "[")]
            appendNumber(row + 1)
            bytes.append(UInt8(ascii: ";"))
            appendNumber(column + 1)
            bytes.append(UInt8(ascii: "H"))
        }
        appendAttributes(of: cell)
        let scalars = cell.character.unicodeScalars
        if scalars.contains(where: TerminalText.isUnsafe) {
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes += cell.character.utf8
        }
        cursor = (column + DisplayWidth.of(cell.character), row)
    }

    /// The bytes, ending with the attributes reset and the cursor put back.
    public func finished() -> [UInt8] {
        bytes + [0x1B, UInt8(ascii: "["), UInt8(ascii: "0"), UInt8(ascii: "m"), 0x1B, UInt8(ascii: "8")]
    }

    private mutating func appendAttributes(of cell: StyledCell) {
        var first = true
        func separate(_ bytes: inout [UInt8]) {
            bytes.append(first ? UInt8(ascii: "[") : UInt8(ascii: ";"))
            first = false
        }
        if style != cell.style {
            bytes.append(0x1B)
            separate(&bytes)
            bytes.append(UInt8(ascii: "0"))
            for (flag, code) in [(TextStyle.bold, 1), (.dim, 2), (.underline, 4), (.reverse, 7)] where cell.style.contains(flag) {
                bytes.append(UInt8(ascii: ";"))
                appendNumber(code)
            }
            style = cell.style
            foreground = .default
            background = .default
        }
        if cell.foreground != foreground {
            if first { bytes.append(0x1B) }
            separate(&bytes)
            appendColor(cell.foreground, isForeground: true)
            foreground = cell.foreground
        }
        if cell.background != background {
            if first { bytes.append(0x1B) }
            separate(&bytes)
            appendColor(cell.background, isForeground: false)
            background = cell.background
        }
        if !first { bytes.append(UInt8(ascii: "m")) }
    }

    /// The SGR parameters of `color`, as `AnsiPrinter.parameters(for:isForeground:)` gives them.
    private mutating func appendColor(_ color: TerminalColor, isForeground: Bool) {
        switch color {
        case .default:
            appendNumber(isForeground ? 39 : 49)
        case .indexed(let index) where index < 8:
            appendNumber((isForeground ? 30 : 40) + Int(index))
        case .indexed(let index) where index < 16:
            appendNumber((isForeground ? 90 : 100) + Int(index) - 8)
        case .indexed(let index):
            appendNumber(isForeground ? 38 : 48)
            bytes += [UInt8(ascii: ";"), UInt8(ascii: "5"), UInt8(ascii: ";")]
            appendNumber(Int(index))
        case .rgb(let rgb):
            appendNumber(isForeground ? 38 : 48)
            bytes += [UInt8(ascii: ";"), UInt8(ascii: "2")]
            for component in [rgb.red, rgb.green, rgb.blue] {
                bytes.append(UInt8(ascii: ";"))
                appendNumber(Int(component))
            }
        }
    }

    private mutating func appendNumber(_ number: Int) {
        if number >= 10 { appendNumber(number / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(number % 10))
    }
}
