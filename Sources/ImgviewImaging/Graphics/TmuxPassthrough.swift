/// Wraps escape sequences so tmux hands them to the terminal it runs in, instead of eating them.
///
/// tmux (3.3 and later only with `set -g allow-passthrough on`) forwards the body of
/// `ESC P tmux; … ESC \` with every inner ESC doubled.
public enum TmuxPassthrough {
    public static func wrap(_ sequence: [UInt8]) -> [UInt8] {
        var output: [UInt8] = Array("\u{1B}Ptmux;".utf8)
        output.reserveCapacity(sequence.count + sequence.count / 64 + 16)
        for byte in sequence {
            if byte == 0x1B { output.append(0x1B) }
            output.append(byte)
        }
        output += [0x1B, UInt8(ascii: "\\")]
        return output
    }

    /// `wrapped` (one or more passthrough packets, as `wrap` makes them) with each packet drawing at
    /// cell (`row`, `column`) of the outer terminal (1-based): the cursor saved, moved and restored
    /// inside the packet, since tmux moves the outer cursor home after every packet it passes on and
    /// never moves it to the pane's cursor first. Bytes outside packets are kept as they are.
    public static func positioned(_ wrapped: [UInt8], row: Int, column: Int) -> [UInt8] {
        let prefix = Array("\u{1B}Ptmux;".utf8)
        let moveTo = Array("\u{1B}\u{1B}7\u{1B}\u{1B}[\(row);\(column)H".utf8)
        let restore = Array("\u{1B}\u{1B}8".utf8)
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
                if wrapped[index] == 0x1B, index + 1 < wrapped.count {
                    if wrapped[index + 1] == 0x1B {
                        output += [0x1B, 0x1B]
                        index += 2
                        continue
                    }
                    if wrapped[index + 1] == UInt8(ascii: "\\") {
                        output += restore + [0x1B, UInt8(ascii: "\\")]
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
