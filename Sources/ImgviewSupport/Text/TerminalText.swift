/// Makes untrusted text safe to print to a terminal.
///
/// Catalog titles, URLs, file names and server headers come from places imgview does not
/// control; an escape sequence in them could retitle the window, move the cursor or worse.
public enum TerminalText {
    /// `text` with every C0 and C1 control character, DEL, line and paragraph separator and bidi
    /// override shown as `?`.
    ///
    /// Escape sequences lose their ESC, so what remains prints as harmless text.
    public static func sanitized(_ text: String) -> String {
        // Printable ASCII, the usual case (URLs are percent-encoded), needs no work.
        if text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result.append("?")
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Whether printing `scalar` could change the terminal's state or reorder the text around it.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Line and paragraph separators break a line as a newline does, where a line is promised.
        case 0x2028, 0x2029: true
        // Bidirectional overrides and isolates can make a URL read as another.
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
