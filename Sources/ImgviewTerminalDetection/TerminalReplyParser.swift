import ImgviewImaging
import ImgviewSupport

/// Reads a terminal's answers out of the bytes that arrive on its input, one byte at a time, and
/// tells them from the keys the user typed meanwhile and from noise.
///
/// Fed in pieces as they arrive: a sequence cut between two reads waits for its end. Everything
/// from the terminal is bounded and checked: an answer longer than `longestSequence` is dropped
/// unread, values outside what real terminals report are clamped or refused, and past
/// `mostInput` bytes nothing more is looked at. What is not an answer is either a key typed
/// meanwhile (printable characters, and complete key sequences such as an arrow), kept in order
/// up to `longestTypeahead` bytes to be given back, or noise — a sequence cut short, one nobody
/// asked for, NULs and other control bytes, a flood — which is dropped and makes the terminal's
/// pending input be dropped too (`sawNoise`).
public struct TerminalReplyParser: Sendable {
    /// The longest answer read; every answer to the query is far shorter.
    public static let longestSequence = 512
    /// The most typed keys given back; more than a person types in the query's wait is a flood.
    public static let longestTypeahead = 256
    /// The most bytes looked at; past them the rest is a flood, counted and dropped.
    public static let mostInput = 64 * 1024

    public private(set) var replies = TerminalReplies()
    /// Whether anything arrived that was neither an answer nor a key.
    public private(set) var sawNoise = false
    /// Whether more than `mostInput` bytes arrived.
    public private(set) var isFlooded = false

    private enum State: Sendable {
        case ground
        case escape
        case csi
        case ss3
        /// A control string of `kind`; `afterEscape` when the last byte was an ESC that may begin ST.
        case string(Kind, afterEscape: Bool)
        /// A sequence too long to be an answer, dropped up to its end.
        case skippingCSI
        case skippingString(Kind, afterEscape: Bool)
    }

    enum Kind: Sendable { case dcs, apc, osc, other }

    private var state = State.ground
    /// The sequence under way, from its ESC.
    private var sequence: [UInt8] = []
    private var typeahead: [UInt8] = []
    private var typeaheadOverflowed = false
    private var received = 0

    public init() {}

    /// Whether a sequence has begun and not ended: the terminal is in the middle of an answer.
    public var isInsideSequence: Bool {
        if case .ground = state { return false }
        return true
    }

    public mutating func consume(_ bytes: [UInt8]) {
        for byte in bytes {
            received += 1
            if received > Self.mostInput {
                isFlooded = true
                sawNoise = true
                return
            }
            step(byte)
        }
    }

    /// The answers, and the keys typed meanwhile unless noise came with them (then nothing of the
    /// input is trusted as typed). A sequence still waiting for its end is a fragment: noise.
    public mutating func finish() -> TerminalReplies {
        if case .escape = state {
            // An Esc key pressed last: dropped, but no sign of a broken terminal.
        } else if isInsideSequence {
            sawNoise = true
        }
        state = .ground
        sequence = []
        replies.unclaimed = sawNoise ? [] : typeahead
        return replies
    }

    // MARK: One byte

    private mutating func step(_ byte: UInt8) {
        switch state {
        case .ground:
            if byte == ControlCode.escape {
                state = .escape
                sequence = [byte]
            } else if Self.isTypedByte(byte) {
                keep([byte])
            } else {
                sawNoise = true
            }
        case .escape:
            sequence.append(byte)
            switch byte {
            case ControlCode.csiIntroducer: state = .csi
            case ControlCode.ss3Introducer: state = .ss3
            case ControlCode.dcsIntroducer: state = .string(.dcs, afterEscape: false)
            case ControlCode.apcIntroducer: state = .string(.apc, afterEscape: false)
            case ControlCode.oscIntroducer: state = .string(.osc, afterEscape: false)
            case _ where ControlCode.opensControlString(byte): state = .string(.other, afterEscape: false)
            case ControlCode.escape:
                // An Esc key on its own, dropped; this ESC starts something of its own.
                sequence = [byte]
            case 0x20...0x7E:
                // Alt and a key.
                keep(sequence)
                state = .ground
            default:
                sawNoise = true
                state = .ground
            }
        case .csi:
            if ControlCode.isFinal(byte) {
                sequence.append(byte)
                state = .ground
                completedCSI()
            } else if ControlCode.isCSIParameter(byte) {
                sequence.append(byte)
                if sequence.count > Self.longestSequence {
                    sawNoise = true
                    state = .skippingCSI
                }
            } else {
                brokenOff(by: byte)
            }
        case .ss3:
            if ControlCode.isFinal(byte) {
                keep(sequence + [byte])
                state = .ground
            } else {
                brokenOff(by: byte)
            }
        case .string(let kind, let afterEscape):
            if afterEscape {
                if byte == ControlCode.stringTerminatorFinal {
                    sequence.append(byte)
                    state = .ground
                    completedString(kind, body: sequence.dropFirst(2).dropLast(2))
                } else {
                    // ESC and anything but `\` cuts the string off and begins a new sequence.
                    sawNoise = true
                    state = .escape
                    sequence = [ControlCode.escape]
                    step(byte)
                }
            } else if byte == ControlCode.bell, kind == .osc {
                state = .ground
                completedString(kind, body: sequence.dropFirst(2))
            } else {
                sequence.append(byte)
                if sequence.count > Self.longestSequence {
                    sawNoise = true
                    state = .skippingString(kind, afterEscape: byte == ControlCode.escape)
                } else {
                    state = .string(kind, afterEscape: byte == ControlCode.escape)
                }
            }
        case .skippingCSI:
            if ControlCode.isFinal(byte) {
                state = .ground
            } else if !ControlCode.isCSIParameter(byte) {
                state = .ground
                step(byte)
            }
        case .skippingString(let kind, let afterEscape):
            if (afterEscape && byte == ControlCode.stringTerminatorFinal) || (kind == .osc && byte == ControlCode.bell) {
                state = .ground
            } else {
                state = .skippingString(kind, afterEscape: byte == ControlCode.escape)
            }
        }
    }

    /// A sequence interrupted by a byte that cannot be in it: dropped, and the byte read afresh.
    private mutating func brokenOff(by byte: UInt8) {
        sawNoise = true
        state = .ground
        sequence = []
        step(byte)
    }

    /// Keeps `bytes` as typed keys, unless there are already too many.
    private mutating func keep(_ bytes: [UInt8]) {
        guard typeahead.count + bytes.count <= Self.longestTypeahead else {
            typeaheadOverflowed = true
            sawNoise = true
            return
        }
        typeahead += bytes
    }

    /// What a person types: printable characters (UTF-8 included), Tab, Enter, Backspace.
    private static func isTypedByte(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte) || byte >= 0x80 || byte == 0x09 || byte == 0x0D || byte == 0x0A || byte == 0x7F || byte == 0x08
    }

    private mutating func completedCSI() {
        let body = sequence.dropFirst(2)
        if take(.csi, body) { return }
        // An arrow, Home, End, PgUp… typed meanwhile is a key; any other CSI is an answer nobody asked for.
        if let final = body.last, "ABCDHFZ~".utf8.contains(final), body.dropLast().allSatisfy({ (0x30...0x3B).contains($0) }) {
            keep(sequence)
        } else {
            sawNoise = true
        }
    }

    private mutating func completedString(_ kind: Kind, body: ArraySlice<UInt8>) {
        if !take(kind == .dcs ? .dcs : kind == .apc ? .apc : kind == .osc ? .osc : .other, body) { sawNoise = true }
    }

    enum Answer { case csi, dcs, apc, osc, other }

    /// Records `body` when it is one of the answers asked for.
    private mutating func take(_ kind: Answer, _ body: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: body, as: UTF8.self)
        switch kind {
        case .dcs:
            guard text.hasPrefix(">|") else { return false }
            replies.version = String(text.dropFirst(2))
            return true
        case .apc:
            guard text.hasPrefix("G") else { return false }
            // `Gi=31;OK`, or `Gi=31;ENOTSUPPORTED:…`; `Gi=32;…` for the question with a virtual placement.
            guard let separator = text.firstIndex(of: ";") else { return false }
            let answer = String(text[text.index(after: separator)...])
            switch text[..<separator] {
            case "Gi=\(TerminalQuery.kittyQueryID)": replies.kittyGraphics = answer
            case "Gi=\(TerminalQuery.kittyPlaceholderQueryID)": replies.kittyPlaceholders = answer
            default: return false
            }
            return true
        case .osc:
            guard text.hasPrefix("11;"), let colour = Self.colour(String(text.dropFirst(3))) else { return false }
            replies.background = colour
            return true
        case .csi:
            return takeCSI(text)
        case .other:
            return false
        }
    }

    private mutating func takeCSI(_ text: String) -> Bool {
        guard let final = text.last else { return false }
        let parameters = String(text.dropLast())
        /// `a;b;c` as numbers of at most six digits each; nil when anything else is there.
        func numbers(_ string: Substring) -> [Int]? {
            let fields = string.split(separator: ";", omittingEmptySubsequences: false)
            guard fields.allSatisfy({ (1...6).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
            let values = fields.map { Int($0) }
            return values.contains(nil) ? nil : values.compactMap { $0 }
        }
        switch final {
        case "c" where parameters.hasPrefix("?"):
            // kitty ends its list with a `;` (`? 62 ; c`).
            let fields = parameters.dropFirst().split(separator: ";")
            guard !fields.isEmpty, let values = numbers(Substring(fields.joined(separator: ";"))) else { return false }
            replies.deviceAttributes = values
            return true
        case "c" where parameters.hasPrefix(">"):
            let fields = parameters.dropFirst().split(separator: ";")
            let values = fields.compactMap { Int($0) }
            guard values.count == fields.count, !values.isEmpty else { return false }
            replies.secondaryAttributes = values
            return true
        case "n" where parameters == "0":
            replies.statusReported = true
            return true
        case "t":
            guard let values = numbers(parameters[...]), values.count == 3, values[1] > 0, values[2] > 0 else { return false }
            if values[0] == 6 {
                replies.cellPixels = CellPixelSize.reported(width: values[2], height: values[1])
            } else if values[0] == 4 {
                replies.textAreaPixels = (values[2], values[1])
            } else {
                return false
            }
            return true
        case "y" where parameters.hasPrefix("?\(DECMode.synchronizedOutput.rawValue);") && parameters.hasSuffix("$"):
            guard let state = Int(parameters.dropFirst(6).dropLast()), (0...4).contains(state) else { return false }
            replies.synchronizedOutputState = state
            return true
        case "S" where parameters.hasPrefix("?1;"):
            // `? 1 ; status ; value`: status 0 is success.
            guard let values = numbers(parameters.dropFirst()), values.count >= 3 else { return false }
            if values[1] == 0, values[2] >= 1 { replies.colorRegisters = values[2] }
            return true
        default:
            return false
        }
    }

    /// `rgb:rrrr/gggg/bbbb` (1 to 4 hex digits per channel), as X11 writes colours.
    static func colour(_ text: String) -> RGBColor? {
        guard text.hasPrefix("rgb:") else { return nil }
        let channels = text.dropFirst(4).split(separator: "/")
        guard channels.count == 3 else { return nil }
        var values: [UInt8] = []
        for channel in channels {
            guard (1...4).contains(channel.count), let value = UInt32(channel, radix: 16) else { return nil }
            let maximum = (UInt32(1) << (4 * UInt32(channel.count))) - 1
            values.append(UInt8((value * 255 + maximum / 2) / maximum))
        }
        return RGBColor(red: values[0], green: values[1], blue: values[2])
    }
}
