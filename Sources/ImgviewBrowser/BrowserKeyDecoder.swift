import ImgviewSupport

/// Reads the keys a terminal library hands over one by one and puts back together the escape
/// sequences it did not decode itself: keys in the forms its terminfo entry does not name, xterm's
/// SGR mouse reports, and whatever else a terminal sends, which is dropped.
///
/// ncurses decodes only the sequences the terminfo entry of `TERM` lists; under tmux with
/// `TERM=xterm-256color`, Home and End arrive as `ESC [ 1 ~` and `ESC [ 4 ~`, and after a suspend
/// the arrows may come in cursor mode (`ESC [ C`) rather than keypad mode (`ESC O C`). So every
/// common form of the keys the browser uses is known here: `ESC [ A…D`, `ESC O A…D`, `ESC [ H`,
/// `ESC [ F`, `ESC O H`, `ESC O F`, `ESC [ 1 ~` … `ESC [ 8 ~`, `ESC [ Z`, shifted arrows
/// (`ESC [ 1 ; 2 C`), and the keypad's application forms (`ESC O p` … `ESC O y`, `ESC O M`). A
/// sequence it does not know — a function key, Alt and a key, a late answer to the terminal
/// query, a report of focus — is dropped whole: only the Escape key on its own is Escape.
///
/// Mouse reporting is turned on by the browser itself (`mouseReportingOn`) rather than through
/// terminfo, whose entries mostly still name the old X10 encoding (tmux-256color among them),
/// which cannot place a click past column 223. A sequence split across two reads is put back
/// together.
public struct BrowserKeyDecoder: Sendable {
    /// Turns on button press and release reports (1000) in the SGR encoding (1006).
    public static let mouseReportingOn = EscapeSequence.setMode(.mouseButtonReports) + EscapeSequence.setMode(.mouseSGREncoding)
    /// Turns them off again.
    public static let mouseReportingOff = EscapeSequence.resetMode(.mouseSGREncoding) + EscapeSequence.resetMode(.mouseButtonReports)

    /// The longest control sequence kept while it arrives; a longer one is noise, dropped.
    public static let longestSequence = 64
    /// The longest control string (OSC, DCS, APC …) waited through; past it the rest of the read is dropped.
    public static let longestString = 4096

    /// What a key completed.
    public enum Output: Sendable, Equatable {
        case key(BrowserKey)
        case mouse(MouseEvent)
    }

    private enum State: Sendable {
        case ground
        /// ESC came; what follows says what it starts.
        case escape
        /// `ESC [` and the parameter and intermediate bytes so far.
        case csi([UInt8])
        /// `ESC O`: one more byte names the key.
        case ss3
        /// A control string, dropped up to its terminator; `afterEscape` when its ESC may begin ST.
        case string(length: Int, afterEscape: Bool)
        /// Noise too long to wait through: everything up to the end of this read goes.
        case discarding
    }

    private var state = State.ground

    public init() {}

    /// Whether nothing is waiting to be completed.
    public var isIdle: Bool {
        if case .ground = state { return true }
        return false
    }

    /// Reads one key; returns what it completes (nothing while a sequence is still arriving).
    public mutating func feed(_ key: BrowserKey) -> [Output] {
        switch state {
        case .ground:
            if key == .escape {
                state = .escape
                return []
            }
            return [.key(key)]
        case .escape:
            guard let byte = Self.byte(of: key) else {
                // Escape, then a key the terminal library decoded: Escape came alone after all.
                state = .ground
                return [.key(.escape)] + feed(key)
            }
            switch byte {
            case ControlCode.escape:
                // The first was the Escape key; the second starts something of its own.
                return [.key(.escape)]
            case ControlCode.csiIntroducer:
                state = .csi([])
            case ControlCode.ss3Introducer:
                state = .ss3
            case _ where ControlCode.opensControlString(byte):
                state = .string(length: 0, afterEscape: false)
            default:
                // Alt and a key, which the browser has no use for.
                state = .ground
            }
            return []
        case .csi(var body):
            guard let byte = Self.byte(of: key), byte >= 0x20, byte <= 0x7E else {
                // Not part of a sequence: the sequence was broken off; the key counts on its own.
                state = .ground
                return feed(key)
            }
            if ControlCode.isFinal(byte) {
                state = .ground
                return Self.csi(body, final: byte).map { [$0] } ?? []
            }
            body.append(byte)
            state = body.count < Self.longestSequence ? .csi(body) : .discarding
            return []
        case .ss3:
            state = .ground
            guard let byte = Self.byte(of: key) else { return feed(key) }
            return Self.ss3(byte).map { [.key($0)] } ?? []
        case .string(let length, let afterEscape):
            let byte = Self.byte(of: key)
            if byte == ControlCode.bell || (afterEscape && byte == ControlCode.stringTerminatorFinal) {
                state = .ground
            } else if length + 1 >= Self.longestString {
                state = .discarding
            } else {
                state = .string(length: length + 1, afterEscape: byte == ControlCode.escape)
            }
            return []
        case .discarding:
            return []
        }
    }

    /// At the end of a read: an ESC alone was the Escape key (the terminal library already waited
    /// for the rest), and noise being dropped ends here. A sequence under way waits for the next read.
    public mutating func endOfInput() -> [Output] {
        switch state {
        case .escape:
            state = .ground
            return [.key(.escape)]
        case .discarding:
            state = .ground
            return []
        default:
            return []
        }
    }

    /// The byte a key stands for inside a sequence: ASCII characters, and ESC.
    private static func byte(of key: BrowserKey) -> UInt8? {
        switch key {
        case .escape: ControlCode.escape
        case .character(let character): character.asciiValue
        case .enter: UInt8(ascii: "\r")
        case .tab: UInt8(ascii: "\t")
        case .backspace: 0x7F
        case .interrupt: 0x03
        case .suspend: 0x1A
        default: nil
        }
    }

    /// What `ESC [ body final` means, if the browser knows it.
    private static func csi(_ body: [UInt8], final: UInt8) -> Output? {
        if body.first == UInt8(ascii: "<") {
            return (final == UInt8(ascii: "M") || final == UInt8(ascii: "m"))
                ? mouse(Array(body.dropFirst()), final: final).map(Output.mouse) : nil
        }
        guard let fields = numbers(body) else { return nil }
        // A modifier, when given, is 1 + (2 for Shift, 3 for Alt, 5 for Ctrl, …): only Shift and none mean anything here.
        let modifier = fields.count > 1 ? fields[1] : 1
        guard modifier == 1 || modifier == 2, fields.count <= 2 else { return nil }
        let shifted = modifier == 2
        let first = fields.first ?? 1
        switch final {
        case UInt8(ascii: "A"), UInt8(ascii: "B"), UInt8(ascii: "C"), UInt8(ascii: "D"):
            guard first == 1 else { return nil }
            return .key(arrow(final, shifted: shifted))
        case UInt8(ascii: "H"):
            return first == 1 && !shifted ? .key(.home) : nil
        case UInt8(ascii: "F"):
            return first == 1 && !shifted ? .key(.end) : nil
        case UInt8(ascii: "Z"):
            return fields.isEmpty ? .key(.backTab) : nil
        case UInt8(ascii: "~"):
            guard !shifted else { return nil }
            switch first {
            case 1, 7: return .key(.home)
            case 4, 8: return .key(.end)
            case 3: return .key(.delete)
            case 5: return .key(.pageUp)
            case 6: return .key(.pageDown)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The key `ESC O byte` stands for: cursor keys in keypad mode and the keypad's application keys.
    private static func ss3(_ byte: UInt8) -> BrowserKey? {
        switch byte {
        case UInt8(ascii: "A"), UInt8(ascii: "B"), UInt8(ascii: "C"), UInt8(ascii: "D"): arrow(byte, shifted: false)
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "M"): .enter
        case UInt8(ascii: "p")...UInt8(ascii: "y"): .character(Character(Unicode.Scalar(UInt8(ascii: "0") + byte - UInt8(ascii: "p"))))
        case UInt8(ascii: "k"): .character("+")
        case UInt8(ascii: "m"): .character("-")
        case UInt8(ascii: "j"): .character("*")
        case UInt8(ascii: "o"): .character("/")
        case UInt8(ascii: "n"): .character(".")
        default: nil
        }
    }

    private static func arrow(_ final: UInt8, shifted: Bool) -> BrowserKey {
        switch final {
        case UInt8(ascii: "A"): shifted ? .shiftUp : .up
        case UInt8(ascii: "B"): shifted ? .shiftDown : .down
        case UInt8(ascii: "C"): shifted ? .shiftRight : .right
        default: shifted ? .shiftLeft : .left
        }
    }

    /// `a;b;c` as numbers (an empty field is `emptyIs`, the default, or refused when nil); nil when
    /// anything else is in it.
    private static func numbers(_ body: [UInt8], emptyIs: Int? = 1) -> [Int]? {
        guard !body.isEmpty else { return emptyIs == nil ? nil : [] }
        var fields: [Int] = []
        for field in body.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false) {
            if field.isEmpty {
                guard let emptyIs else { return nil }
                fields.append(emptyIs)
                continue
            }
            guard field.count <= 6, field.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            fields.append(field.reduce(0) { $0 * 10 + Int($1 - 0x30) })
        }
        return fields
    }

    /// The event an `ESC [ < b ; x ; y M|m` report describes.
    private static func mouse(_ body: [UInt8], final: UInt8) -> MouseEvent? {
        guard let fields = numbers(body, emptyIs: nil), fields.count == 3, fields[1] >= 1, fields[2] >= 1 else { return nil }
        let code = fields[0]
        let button = code & 0b11
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            // 64 wheel up, 65 wheel down; 66 and 67 (sideways) are not used.
            guard button <= 1 else { return nil }
            kind = button == 0 ? .wheelUp : .wheelDown
        } else if code & 32 != 0 {
            guard button < 3 else { return nil }
            kind = .drag(button: button)
        } else {
            guard button < 3 else { return nil }
            kind = final == UInt8(ascii: "M") ? .press(button: button) : .release(button: button)
        }
        return MouseEvent(kind, column: fields[1] - 1, row: fields[2] - 1)
    }
}
