import ImgviewImaging

/// Reads a terminal's answers out of the bytes that arrive on its input, keeping everything
/// else (the user's keys) in order for whoever reads input next.
///
/// Fed in pieces as they arrive: a sequence cut between two reads waits for its end. Only the
/// answers the detection query asks for are taken; any other escape sequence (an arrow key, a
/// function key) is kept as typed.
public struct TerminalReplyParser: Sendable {
    public private(set) var replies = TerminalReplies()
    private var pending: [UInt8] = []

    public init() {}

    public mutating func consume(_ bytes: [UInt8]) {
        pending += bytes
        var position = 0
        while position < pending.count {
            guard pending[position] == 0x1B else {
                replies.unclaimed.append(pending[position])
                position += 1
                continue
            }
            switch Self.sequence(in: pending, at: position) {
            case .incomplete:
                pending.removeFirst(position)
                return
            case .complete(let end, let kind, let body):
                if !take(kind, body) { replies.unclaimed += pending[position..<end] }
                position = end
            }
        }
        pending.removeAll()
    }

    /// Gives up on a sequence still waiting for its end (a lone Esc key) and keeps it as input.
    public mutating func finish() -> TerminalReplies {
        replies.unclaimed += pending
        pending.removeAll()
        return replies
    }

    enum Kind { case csi, dcs, apc, osc, other }

    enum Scan {
        case incomplete
        /// The sequence ends before `end`; `body` is what lies between its introducer and terminator.
        case complete(end: Int, kind: Kind, body: ArraySlice<UInt8>)
    }

    static func sequence(in bytes: [UInt8], at start: Int) -> Scan {
        guard start + 1 < bytes.count else { return .incomplete }
        let introducer = bytes[start + 1]
        switch introducer {
        case UInt8(ascii: "["):
            var index = start + 2
            while index < bytes.count {
                // Parameters and intermediates are 0x20...0x3F; the final byte ends it.
                if (0x40...0x7E).contains(bytes[index]) {
                    return .complete(end: index + 1, kind: .csi, body: bytes[(start + 2)...index])
                }
                if !(0x20...0x3F).contains(bytes[index]) { return .complete(end: index, kind: .other, body: []) }
                index += 1
            }
            return .incomplete
        case UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "]"):
            let kind: Kind = introducer == UInt8(ascii: "P") ? .dcs : introducer == UInt8(ascii: "_") ? .apc : .osc
            var index = start + 2
            while index < bytes.count {
                if bytes[index] == 0x07, kind == .osc { return .complete(end: index + 1, kind: kind, body: bytes[(start + 2)..<index]) }
                if bytes[index] == 0x1B {
                    guard index + 1 < bytes.count else { return .incomplete }
                    if bytes[index + 1] == UInt8(ascii: "\\") {
                        return .complete(end: index + 2, kind: kind, body: bytes[(start + 2)..<index])
                    }
                }
                index += 1
            }
            return .incomplete
        default:
            // Alt + a key, or a lone Esc followed by a key.
            return .complete(end: start + 2, kind: .other, body: [])
        }
    }

    /// Records `body` when it is one of the answers asked for; false leaves it as input.
    private mutating func take(_ kind: Kind, _ body: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: body, as: UTF8.self)
        switch kind {
        case .dcs:
            guard text.hasPrefix(">|") else { return false }
            replies.version = String(text.dropFirst(2))
            return true
        case .apc:
            guard text.hasPrefix("G") else { return false }
            // `Gi=31;OK`, or `Gi=31;ENOTSUPPORTED:…`
            guard let separator = text.firstIndex(of: ";"), text.contains("i=31") else { return false }
            replies.kittyGraphics = String(text[text.index(after: separator)...])
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
        func numbers(_ string: Substring) -> [Int]? {
            let values = string.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
            return values.contains(nil) ? nil : values.compactMap { $0 }
        }
        switch final {
        case "c" where parameters.hasPrefix("?"):
            // kitty ends its list with a `;` (`? 62 ; c`).
            let fields = parameters.dropFirst().split(separator: ";")
            let values = fields.compactMap { Int($0) }
            guard values.count == fields.count, !values.isEmpty else { return false }
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
                replies.cellPixels = CellPixelSize(width: values[2], height: values[1])
            } else if values[0] == 4 {
                replies.textAreaPixels = (values[2], values[1])
            } else {
                return false
            }
            return true
        case "y" where parameters.hasPrefix("?2026;") && parameters.hasSuffix("$"):
            guard let state = Int(parameters.dropFirst(6).dropLast()) else { return false }
            replies.synchronizedOutputState = state
            return true
        case "S" where parameters.hasPrefix("?1;"):
            // `? 1 ; status ; value`: status 0 is success.
            guard let values = numbers(parameters.dropFirst()), values.count >= 3 else { return false }
            if values[1] == 0 { replies.colorRegisters = values[2] }
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
