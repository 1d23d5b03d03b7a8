/// SGR (Select Graphic Rendition), `CSI p ; p … m`: the attributes and colours text is drawn in.
///
/// `show`'s text previews (`AnsiPrinter`) and the browser's cells written beside ncurses
/// (`DirectCellText`) both write their colours through this, so the two print the same bytes for
/// the same colours.
public enum SGR {
    /// A colour as SGR selects it: the terminal's own, one of its palette, or 24-bit.
    public enum Color: Sendable, Hashable {
        case `default`
        /// 0–7 the ANSI colours, 8–15 their bright forms, 16–255 xterm's cube and greys.
        case palette(UInt8)
        case rgb(red: UInt8, green: UInt8, blue: UInt8)
    }

    public enum Attribute: Sendable, Hashable {
        /// Everything back to the terminal's defaults.
        case reset
        case bold
        case dim
        case underline
        case reverse
        case foreground(Color)
        case background(Color)
    }

    /// `CSI 0 m`: attributes and colours back to the terminal's defaults.
    public static let reset: [UInt8] = sequence([.reset])

    /// One sequence setting `attributes` in order; nothing for none.
    public static func sequence(_ attributes: [Attribute]) -> [UInt8] {
        var bytes: [UInt8] = []
        var writer = SGRWriter()
        for attribute in attributes { writer.append(attribute, to: &bytes) }
        writer.finish(&bytes)
        return bytes
    }
}

/// One SGR sequence written attribute by attribute into a caller's buffer, so that a writer of
/// thousands of cells allocates nothing per cell: the introducer comes with the first attribute,
/// a separator before each further one, the final `m` from `finish`.
public struct SGRWriter: Sendable {
    private var count = 0

    public init() {}

    /// Whether any attribute was appended (and so `finish` will end a sequence).
    public var isEmpty: Bool { count == 0 }

    public mutating func append(_ attribute: SGR.Attribute, to bytes: inout [UInt8]) {
        if count == 0 {
            bytes += ControlCode.csi
        } else {
            bytes.append(UInt8(ascii: ";"))
        }
        count += 1
        switch attribute {
        case .reset: bytes.append(UInt8(ascii: "0"))
        case .bold: bytes.append(UInt8(ascii: "1"))
        case .dim: bytes.append(UInt8(ascii: "2"))
        case .underline: bytes.append(UInt8(ascii: "4"))
        case .reverse: bytes.append(UInt8(ascii: "7"))
        case .foreground(let color): Self.append(color, base: 30, to: &bytes)
        case .background(let color): Self.append(color, base: 40, to: &bytes)
        }
    }

    /// Ends the sequence, when anything was appended.
    public func finish(_ bytes: inout [UInt8]) {
        if count > 0 { bytes.append(UInt8(ascii: "m")) }
    }

    /// A colour's parameters: `base + 9` for the default, `base + n` and `base + 60 + n` for the
    /// sixteen named colours, `base + 8 ; 5 ; n` for the palette's others, `base + 8 ; 2 ; r ; g ; b`.
    private static func append(_ color: SGR.Color, base: Int, to bytes: inout [UInt8]) {
        switch color {
        case .default:
            bytes.appendDecimal(base + 9)
        case .palette(let index) where index < 8:
            bytes.appendDecimal(base + Int(index))
        case .palette(let index) where index < 16:
            bytes.appendDecimal(base + 60 + Int(index) - 8)
        case .palette(let index):
            bytes.appendDecimal(base + 8)
            bytes += [UInt8(ascii: ";"), UInt8(ascii: "5"), UInt8(ascii: ";")]
            bytes.appendDecimal(Int(index))
        case .rgb(let red, let green, let blue):
            bytes.appendDecimal(base + 8)
            bytes += [UInt8(ascii: ";"), UInt8(ascii: "2")]
            for component in [red, green, blue] {
                bytes.append(UInt8(ascii: ";"))
                bytes.appendDecimal(Int(component))
            }
        }
    }
}
