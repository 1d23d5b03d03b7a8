/// How many terminal columns text takes, and how to make it fit a given width.
///
/// East Asian wide and emoji characters take two columns, combining marks none; a preview
/// pane or a metadata value that ignored this would run over its border.
public enum DisplayWidth {
    /// The columns `character` occupies: 0, 1 or 2.
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation }) {
            return 2
        }
        return of(first)
    }

    /// The columns `scalar` occupies on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        // Printable ASCII, and the box-drawing, block, Braille and sextant characters previews are made of.
        if (0x20..<0x7F).contains(value) || (0x2500...0x259F).contains(value) || (0x2800...0x28FF).contains(value)
            || (0x1FB00...0x1FB3B).contains(value)
        {
            return 1
        }
        if value == 0 { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// The columns `text` occupies.
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// `text` cut to at most `width` columns, ending in `…` when something was cut.
    public static func truncated(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// `text` with its middle replaced by `…` so it fits `width` columns; both ends stay readable,
    /// which is what tells two URLs apart.
    public static func elidedMiddle(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        let characters = Array(text)
        guard width > 1 else { return characters.first.map { of($0) <= width ? String($0) : "" } ?? "" }
        let tailBudget = (width - 1) / 2
        let headBudget = width - 1 - tailBudget
        var head = ""
        var used = 0
        for character in characters {
            let columns = of(character)
            if used + columns > headBudget { break }
            head.append(character)
            used += columns
        }
        var tail: [Character] = []
        used = 0
        for character in characters.reversed() {
            let columns = of(character)
            if used + columns > tailBudget { break }
            tail.append(character)
            used += columns
        }
        return head + "…" + String(tail.reversed())
    }

    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}
