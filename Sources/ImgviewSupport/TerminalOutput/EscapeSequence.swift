/// The escape sequences imgview writes to move the cursor, erase, set modes and ask the terminal
/// questions, each spelled once here (ECMA-48 and xterm's control sequences), so no other file
/// spells one by hand. Colours and attributes are `SGR`; strings with a body (graphics, OSC
/// queries) are `ControlString`.
///
/// Rows and columns are counted from zero, as the rest of imgview counts them; the sequences
/// count from one.
public enum EscapeSequence {
    // MARK: Cursor

    /// DECSC: saves the cursor's position and attributes.
    public static let saveCursor: [UInt8] = [ControlCode.escape, UInt8(ascii: "7")]
    /// DECRC: puts back what `saveCursor` saved.
    public static let restoreCursor: [UInt8] = [ControlCode.escape, UInt8(ascii: "8")]

    /// CUP: moves the cursor to `row`, `column`.
    public static func cursorPosition(row: Int, column: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        appendCursorPosition(row: row, column: column, to: &bytes)
        return bytes
    }

    /// CUP, appended to `bytes` without allocating: for writers that place many cells.
    public static func appendCursorPosition(row: Int, column: Int, to bytes: inout [UInt8]) {
        bytes += ControlCode.csi
        bytes.appendDecimal(row + 1)
        bytes.append(UInt8(ascii: ";"))
        bytes.appendDecimal(column + 1)
        bytes.append(UInt8(ascii: "H"))
    }

    /// CUU: moves the cursor up `count` lines (not past the top).
    public static func cursorUp(_ count: Int) -> [UInt8] {
        numbered(count, final: "A")
    }

    /// CUD: moves the cursor down `count` lines (not past the bottom).
    public static func cursorDown(_ count: Int) -> [UInt8] {
        numbered(count, final: "B")
    }

    /// CUF: moves the cursor right `count` columns (not past the right edge).
    public static func cursorForward(_ count: Int) -> [UInt8] {
        numbered(count, final: "C")
    }

    /// EL 0: erases from the cursor to the end of the line.
    public static let eraseToEndOfLine: [UInt8] = ControlCode.csi + [UInt8(ascii: "K")]

    // MARK: Modes

    /// DECSET: turns `mode` on.
    public static func setMode(_ mode: DECMode) -> [UInt8] {
        privateMode(mode, final: "h")
    }

    /// DECRST: turns `mode` off.
    public static func resetMode(_ mode: DECMode) -> [UInt8] {
        privateMode(mode, final: "l")
    }

    // MARK: Questions

    /// XTVERSION: the terminal's name and version, answered as `DCS > | text ST`.
    public static let requestVersion: [UInt8] = ControlCode.csi + Array(">q".utf8)
    /// XTWINOPS 16: one cell's size in pixels, answered as `CSI 6 ; height ; width t`.
    public static let requestCellSize: [UInt8] = numbered(16, final: "t")
    /// XTWINOPS 14: the text area's size in pixels, answered as `CSI 4 ; height ; width t`.
    public static let requestTextAreaSize: [UInt8] = numbered(14, final: "t")
    /// XTSMGRAPHICS: how many sixel colour registers there are, answered as `CSI ? 1 ; status ; value S`.
    public static let requestSixelColorRegisters: [UInt8] = ControlCode.csi + Array("?1;1;0S".utf8)
    /// OSC 11: the background colour, answered as `OSC 11 ; rgb:… ST`.
    public static let requestBackgroundColor: [UInt8] = ControlString.osc.framed(Array("11;?".utf8))
    /// DA1: the device's attributes, answered as `CSI ? a ; b … c`; every terminal answers it.
    public static let requestDeviceAttributes: [UInt8] = ControlCode.csi + [UInt8(ascii: "c")]
    /// DA2: the terminal's kind and firmware version, answered as `CSI > a ; b ; c c`.
    public static let requestSecondaryDeviceAttributes: [UInt8] = ControlCode.csi + Array(">c".utf8)
    /// DSR 5: the terminal's status, answered as `CSI 0 n`; asked last, its answer says every
    /// earlier question has been answered or ignored.
    public static let requestStatusReport: [UInt8] = numbered(5, final: "n")
    /// DSR 6: the cursor's position, answered as `CSI row ; column R` (counted from one).
    public static let requestCursorPosition: [UInt8] = numbered(6, final: "n")

    /// DECRQM: whether `mode` is set, answered as `CSI ? mode ; state $ y`.
    public static func requestMode(_ mode: DECMode) -> [UInt8] {
        var bytes = ControlCode.csi + [UInt8(ascii: "?")]
        bytes.appendDecimal(mode.rawValue)
        return bytes + Array("$p".utf8)
    }

    // MARK: Spelling

    private static func numbered(_ number: Int, final: Unicode.Scalar) -> [UInt8] {
        var bytes = ControlCode.csi
        bytes.appendDecimal(number)
        bytes.append(UInt8(ascii: final))
        return bytes
    }

    private static func privateMode(_ mode: DECMode, final: Unicode.Scalar) -> [UInt8] {
        var bytes = ControlCode.csi + [UInt8(ascii: "?")]
        bytes.appendDecimal(mode.rawValue)
        bytes.append(UInt8(ascii: final))
        return bytes
    }
}
