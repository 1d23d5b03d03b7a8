/// Reads JSON text value by value, building nothing but the strings asked for.
///
/// `JSONSerialization` turns a large catalog into as many `NSDictionary`s, in time and memory that
/// grow with it, before the first entry can be checked (DECISIONS.md, "Catalogs: our own JSON
/// scanner, URLs kept as text"); the catalog parser instead walks the text
/// and keeps three strings per entry. The grammar is RFC 8259's, strictly: no comments, no
/// trailing commas, no control characters inside strings, valid UTF-8, nesting at most 512 deep.
struct JSONScanner {
    /// What kind of value starts at the current position.
    enum Kind: Equatable {
        case object, array, string, number, bool, null
    }

    /// The text is not JSON; `offset` is where that became clear.
    struct SyntaxError: Error, Equatable {
        let problem: String
        let offset: Int
    }

    static let maxDepth = 512

    /// The text; valid while the scanner is used (a catalog's bytes are scanned where they are).
    package let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // A UTF-8 byte order mark is allowed before the text, as JSONSerialization allows it.
        position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Moves to `offset`, a position this scanner reported earlier.
    mutating func move(to offset: Int) {
        position = offset
    }

    /// The kind of the value at the current position (after whitespace), without consuming it.
    mutating func peekKind() throws(SyntaxError) -> Kind {
        skipWhitespace()
        guard position < bytes.count else { throw fail("unexpected end of text") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw fail("unexpected character \(describe(bytes[position]))")
        }
    }

    /// Checks that only whitespace follows.
    mutating func finish() throws(SyntaxError) {
        skipWhitespace()
        guard position == bytes.count else { throw fail("unexpected \(describe(bytes[position])) after the end") }
    }

    // MARK: Containers

    /// Consumes `{`; then call `nextKey` until it returns nil.
    mutating func beginObject() throws(SyntaxError) {
        skipWhitespace()
        try expect(UInt8(ascii: "{"))
        try enter()
    }

    /// The next member's key, with the position left at its value; nil (and `}` consumed) at the end.
    ///
    /// `first` is true for the first call after `beginObject`; before every later call the previous
    /// member's value must have been read or skipped.
    mutating func nextKey(first: Bool) throws(SyntaxError) -> String? {
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return nil
        }
        if !first {
            try expect(UInt8(ascii: ","))
            skipWhitespace()
        }
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
        let key = try readString()
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// Consumes `[`; then call `nextElement` until it returns false.
    mutating func beginArray() throws(SyntaxError) {
        skipWhitespace()
        try expect(UInt8(ascii: "["))
        try enter()
    }

    /// Whether another element follows, with the position left at it; false (and `]` consumed) at the end.
    mutating func nextElement(first: Bool) throws(SyntaxError) -> Bool {
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return false
        }
        if !first { try expect(UInt8(ascii: ",")) }
        _ = try peekKind()
        return true
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw fail("nested more than \(Self.maxDepth) deep") }
    }

    // MARK: Scalars

    /// A string value, unescaped.
    mutating func readString() throws(SyntaxError) -> String {
        skipWhitespace()
        try expect(UInt8(ascii: "\""))
        let start = position
        // The usual case, no escapes: one validation and one copy.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = try decode(start..<position)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw fail("control character in a string") }
            position += 1
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: try decode(start..<position).unicodeScalars)
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                position += 1
                scalars.append(try readEscape())
            case ..<0x20:
                throw fail("control character in a string")
            default:
                let runStart = position
                while position < bytes.count, bytes[position] >= 0x20, bytes[position] != UInt8(ascii: "\""),
                    bytes[position] != UInt8(ascii: "\\")
                {
                    position += 1
                }
                scalars.append(contentsOf: try decode(runStart..<position).unicodeScalars)
            }
        }
        throw fail("unterminated string")
    }

    /// Skips any value, checking its syntax.
    mutating func skipValue() throws(SyntaxError) {
        switch try peekKind() {
        case .object:
            try beginObject()
            var first = true
            while try nextKey(first: first) != nil {
                first = false
                try skipValue()
            }
        case .array:
            try beginArray()
            var first = true
            while try nextElement(first: first) {
                first = false
                try skipValue()
            }
        case .string:
            try skipString()
        case .number:
            try skipNumber()
        case .bool:
            if !consume("true") && !consume("false") { throw fail("unexpected character \(describe(bytes[position]))") }
        case .null:
            guard consume("null") else { throw fail("unexpected character \(describe(bytes[position]))") }
        }
    }

    /// Line and column (from 1) of `offset`, for messages.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }

    // MARK: Private

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws(SyntaxError) {
        guard position < bytes.count else { throw fail("unexpected end of text") }
        guard bytes[position] == byte else {
            throw fail("expected '\(Character(Unicode.Scalar(byte)))', found \(describe(bytes[position]))")
        }
        position += 1
    }

    private mutating func consume(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { expected in bytes[position..<position + count].elementsEqual(expected) }
        if matches { position += count }
        return matches
    }

    private mutating func skipString() throws(SyntaxError) {
        try expect(UInt8(ascii: "\""))
        let start = position
        var isASCII = true
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                // Escapes were checked on the way; the text between them must still be UTF-8.
                if !isASCII { _ = try decode(start..<position) }
                position += 1
                return
            case UInt8(ascii: "\\"):
                position += 1
                _ = try readEscape()
            case ..<0x20:
                throw fail("control character in a string")
            case 0x80...:
                isASCII = false
                position += 1
            default:
                position += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func skipNumber() throws(SyntaxError) {
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw fail("malformed number") }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let digit = peek(), isDigit(digit) else { throw fail("malformed number") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), isDigit(digit) else { throw fail("malformed number") }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The character after a backslash (which is consumed already).
    private mutating func readEscape() throws(SyntaxError) -> Unicode.Scalar {
        guard let byte = peek() else { throw fail("unterminated string") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try readHex4()
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate must be followed by an escaped low one.
                guard consume("\\u") else { throw fail("unpaired surrogate in a \\u escape") }
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in a \\u escape") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else { throw fail("unpaired surrogate in a \\u escape") }
            return scalar
        default:
            throw fail("invalid escape: \\ then \(describe(byte))")
        }
    }

    private mutating func readHex4() throws(SyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("unterminated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// The UTF-8 text in `range`; plain ASCII, the usual case, needs no validation.
    private func decode(_ range: Range<Int>) throws(SyntaxError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw SyntaxError(problem: "invalid UTF-8 in a string", offset: range.lowerBound)
        }
        return text
    }

    private func fail(_ problem: String) -> SyntaxError {
        SyntaxError(problem: problem, offset: position)
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
