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
}
