/// Where a TOML key must start with a key character or a quote: after a table header's `[` or
/// `[[`, and after a dot in a key. toml++ 3.4 asserts this instead of reporting it (its parser
/// aborts the process on `[, "D"]`), so `ConfigFile` checks those places before handing it the text.
///
/// Every line is looked at, even one inside a multi-line string (telling those apart needs a
/// whole TOML lexer, and a comment or a string can hold quotes): such a line that starts with
/// `[` and punctuation is refused too, which no setting of imgview's needs. A key after a `{`
/// (inline tables) is left to toml++, which checks it there.
enum KeyStarts {
    /// The first line with a key that starts with something else, and what is wrong with it.
    static func firstBadKey(in bytes: [UInt8]) -> (line: Int, problem: String)? {
        for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if let problem = problem(in: Array(line)) { return (index + 1, problem) }
        }
        return nil
    }

    /// What is wrong with the key on `line` (a table header, or the text before a `=`), if anything.
    private static func problem(in line: [UInt8]) -> String? {
        var position = line.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? line.endIndex
        guard position < line.endIndex, line[position] != UInt8(ascii: "#") else { return nil }
        var keyEnd = line.firstIndex(of: UInt8(ascii: "=")) ?? line.endIndex
        if line[position] == UInt8(ascii: "[") {
            position += 1
            if position < line.endIndex, line[position] == UInt8(ascii: "[") { position += 1 }
            keyEnd = line[position...].firstIndex(of: UInt8(ascii: "]")) ?? line.endIndex
            guard startsAKey(line, at: position) else { return "a table's name must start with a letter, digit, _, - or a quote" }
        }
        // Dots between key segments, outside quotes: each is followed by the next segment.
        var quote: UInt8? = nil
        var index = position
        while index < keyEnd {
            let byte = line[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "#") {
                break
            } else if byte == UInt8(ascii: "."), !startsAKey(line, at: index + 1) {
                return "a dotted key needs a name after each dot"
            }
            index += 1
        }
        return nil
    }

    /// Whether a key segment starts at `index`, after any spaces: a bare key character or a quote.
    private static func startsAKey(_ line: [UInt8], at index: Int) -> Bool {
        guard let first = line[min(index, line.endIndex)...].first(where: { $0 != 0x20 && $0 != 0x09 }) else { return false }
        switch first {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "\""), UInt8(ascii: "'"):
            return true
        default:
            return false
        }
    }
}
