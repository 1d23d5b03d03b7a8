/// The strings the terminal takes between an introducer and a terminator — APC (kitty graphics),
/// DCS (sixel, tmux's passthrough, XTVERSION's answer) and OSC (iTerm2 images, colours) — and
/// the one place a sequence is wrapped to pass through tmux.
public enum ControlString: Sendable {
    /// `ESC _ … ESC \`.
    case apc
    /// `ESC P … ESC \`.
    case dcs
    /// `ESC ] … ESC \`, or `… BEL` where a terminal is known to want it (`framed(_:endingWithBell:)`).
    case osc

    /// What opens the string.
    public var opening: [UInt8] {
        switch self {
        case .apc: [ControlCode.escape, ControlCode.apcIntroducer]
        case .dcs: [ControlCode.escape, ControlCode.dcsIntroducer]
        case .osc: [ControlCode.escape, ControlCode.oscIntroducer]
        }
    }

    /// What ends the string: ST, or BEL, which only OSC accepts and iTerm2's images use. For
    /// writers that append a large body between `opening` and this rather than frame a copy of it.
    public func closing(endingWithBell: Bool = false) -> [UInt8] {
        precondition(!endingWithBell || self == .osc, "only OSC ends with BEL")
        return endingWithBell ? [ControlCode.bell] : ControlCode.stringTerminator
    }

    /// `body` between the opening and the closing.
    public func framed(_ body: some Collection<UInt8>, endingWithBell: Bool = false) -> [UInt8] {
        var bytes = opening
        bytes.reserveCapacity(bytes.count + body.count + 2)
        bytes += body
        bytes += closing(endingWithBell: endingWithBell)
        return bytes
    }
}

/// How a program's escape sequences reach the terminal: straight, or through tmux, which keeps
/// graphics and most questions for itself unless each is wrapped in its passthrough.
public enum TerminalRoute: Sendable, Hashable {
    case direct
    /// tmux 3.3 and later, with `set -g allow-passthrough on`, forwards the body of
    /// `ESC P tmux; … ESC \` to its own terminal, every ESC inside doubled.
    case tmuxPassthrough

    /// What opens one passthrough packet: `ESC P tmux;`. `TmuxPlacement` reads packets by it.
    public static let passthroughOpening: [UInt8] = ControlString.dcs.opening + Array("tmux;".utf8)

    public init(passthrough: Bool) {
        self = passthrough ? .tmuxPassthrough : .direct
    }

    /// `sequence` as it must be written on this route.
    public func wrap(_ sequence: [UInt8]) -> [UInt8] {
        guard self == .tmuxPassthrough else { return sequence }
        var output = Self.passthroughOpening
        output.reserveCapacity(sequence.count + sequence.count / 64 + 16)
        for byte in sequence {
            if byte == ControlCode.escape { output.append(ControlCode.escape) }
            output.append(byte)
        }
        output += ControlString.dcs.closing()
        return output
    }
}
