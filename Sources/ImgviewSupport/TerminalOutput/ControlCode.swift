/// The bytes that open and close the terminal's escape sequences (ECMA-48), named once for every
/// writer (`EscapeSequence`, `SGR`, `ControlString`) and every reader (the reply parser, the
/// browser's key decoder).
public enum ControlCode {
    /// BEL: ends an OSC string where ST is not used.
    public static let bell: UInt8 = 0x07
    /// ESC: starts every sequence.
    public static let escape: UInt8 = 0x1B

    /// The byte after ESC that makes it a Control Sequence Introducer (`ESC [`, CSI).
    public static let csiIntroducer = UInt8(ascii: "[")
    /// The byte after ESC of Single Shift 3 (`ESC O`), which keys send in application mode.
    public static let ss3Introducer = UInt8(ascii: "O")
    /// The byte after ESC of a Device Control String (`ESC P`, DCS).
    public static let dcsIntroducer = UInt8(ascii: "P")
    /// The byte after ESC of an Application Program Command (`ESC _`, APC).
    public static let apcIntroducer = UInt8(ascii: "_")
    /// The byte after ESC of an Operating System Command (`ESC ]`, OSC).
    public static let oscIntroducer = UInt8(ascii: "]")
    /// The byte after ESC of a Privacy Message (`ESC ^`, PM); nothing here writes one.
    public static let pmIntroducer = UInt8(ascii: "^")
    /// The byte after ESC of a Start of String (`ESC X`, SOS); nothing here writes one.
    public static let sosIntroducer = UInt8(ascii: "X")
    /// The byte after ESC of the String Terminator (`ESC \`, ST) that ends DCS, APC and OSC.
    public static let stringTerminatorFinal = UInt8(ascii: "\\")

    /// `ESC [`.
    public static let csi: [UInt8] = [escape, csiIntroducer]
    /// `ESC \`.
    public static let stringTerminator: [UInt8] = [escape, stringTerminatorFinal]

    /// Whether `byte`, after ESC, opens a control string that runs until ST (or BEL, for OSC).
    public static func opensControlString(_ byte: UInt8) -> Bool {
        byte == dcsIntroducer || byte == apcIntroducer || byte == oscIntroducer || byte == pmIntroducer || byte == sosIntroducer
    }

    /// A CSI's parameter and intermediate bytes (`0x20...0x3F`); its final byte is `0x40...0x7E`.
    public static func isCSIParameter(_ byte: UInt8) -> Bool { (0x20...0x3F).contains(byte) }

    /// Whether `byte` ends a CSI (or an SS3 key).
    public static func isFinal(_ byte: UInt8) -> Bool { (0x40...0x7E).contains(byte) }
}

extension Array where Element == UInt8 {
    /// Appends `number` in decimal ASCII digits, as escape sequences carry their parameters.
    public mutating func appendDecimal(_ number: Int) {
        if number < 0 {
            append(UInt8(ascii: "-"))
            appendDecimal(0 - number)
            return
        }
        if number >= 10 { appendDecimal(number / 10) }
        append(UInt8(ascii: "0") + UInt8(number % 10))
    }
}
