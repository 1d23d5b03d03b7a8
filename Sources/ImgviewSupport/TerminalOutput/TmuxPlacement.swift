/// Where an image passed through tmux lands in the outer terminal.
public enum TmuxPlacement {
    /// The most bytes one passthrough packet may have: tmux drops a string longer than its input
    /// buffer (1 MiB, `input-buffer-size` from 3.6) whole, without a word.
    public static let packetLimit = 1_000_000

    /// Whether `bytes` are wrapped for tmux's passthrough (the terminal outside tmux draws them),
    /// not drawn by tmux itself.
    public static func isPassedThrough(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: TerminalRoute.passthroughOpening)
    }

    /// `wrapped` (one or more passthrough packets, as `TerminalRoute.tmuxPassthrough` makes them) with
    /// each packet drawing at cell (`row`, `column`) of the outer terminal (1-based): the cursor
    /// saved, moved and restored inside the packet, since tmux moves the outer cursor home after
    /// every packet it passes on and never moves it to the pane's cursor first. Bytes outside
    /// packets are kept as they are.
    public static func positioned(_ wrapped: [UInt8], row: Int, column: Int) -> [UInt8] {
        let escape = ControlCode.escape
        let prefix = TerminalRoute.passthroughOpening
        // Inside a packet every ESC is doubled.
        let doubled = { (sequence: [UInt8]) in sequence.flatMap { $0 == escape ? [escape, escape] : [$0] } }
        let moveTo = doubled(EscapeSequence.saveCursor + EscapeSequence.cursorPosition(row: row - 1, column: column - 1))
        let restore = doubled(EscapeSequence.restoreCursor)
        var output: [UInt8] = []
        output.reserveCapacity(wrapped.count + 32)
        var index = 0
        while index < wrapped.count {
            guard wrapped[index...].starts(with: prefix) else {
                output.append(wrapped[index])
                index += 1
                continue
            }
            output += prefix + moveTo
            index += prefix.count
            // The body: every ESC in it is doubled; a single ESC and `\` ends the packet.
            while index < wrapped.count {
                if wrapped[index] == escape, index + 1 < wrapped.count {
                    if wrapped[index + 1] == escape {
                        output += [escape, escape]
                        index += 2
                        continue
                    }
                    if wrapped[index + 1] == UInt8(ascii: "\\") {
                        output += restore + ControlString.dcs.closing()
                        index += 2
                        break
                    }
                }
                output.append(wrapped[index])
                index += 1
            }
        }
        return output
    }
}
