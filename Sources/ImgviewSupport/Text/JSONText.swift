#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// JSON string literals, for output written by hand where `JSONEncoder` would cost too much
/// (`cache ls --json` over ten thousand entries), and the escaping every JSON output gets.
///
/// Besides what JSON requires (quotes, backslashes, C0 controls), DEL, the C1 controls
/// (U+0080–U+009F: U+009B is a one-character CSI on some terminals), line and paragraph
/// separators and bidirectional overrides and isolates are written as `\uXXXX`, so JSON piped to
/// a terminal can neither drive it nor make one string read as another.
public enum JSONText {
    /// `text` as a quoted JSON string, or `null`.
    public static func string(_ text: String?) -> String {
        guard let text else { return "null" }
        if text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return "\"" + text + "\""
        }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where needsEscape(scalar): result += escape(scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `json` (a whole document, as `JSONEncoder` writes it) with every character that `string`
    /// escapes beyond JSON's own rules written as `\uXXXX`. Such characters can only be inside strings.
    public static func escapingUnsafe(_ json: Data) -> Data {
        guard json.contains(where: { $0 >= 0x7F }) else { return json }
        let text = String(decoding: json, as: UTF8.self)
        var result = ""
        result.reserveCapacity(json.count)
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x7F, needsEscape(scalar) {
                result += escape(scalar.value)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return Data(result.utf8)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: TerminalText.isUnsafe(scalar)
        }
    }

    private static func escape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
