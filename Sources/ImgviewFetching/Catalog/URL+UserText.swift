#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension URL {
    /// A URL from text a person or a catalog wrote, percent-encoded exactly once.
    ///
    /// Characters a URL may not hold (a space, `|`, `[` `]` outside an IPv6 host, `"`, non-ASCII
    /// letters, a `%` that starts no escape) become `%XX` of their UTF-8 bytes; an escape already
    /// there stays as it is. Foundation's `URL(string:)` encodes the whole string again when any
    /// character is invalid, so `a%20b[1].jpg` became `a%2520b%5B1%5D.jpg`, a file the server
    /// does not have. Nil when what is left is still not a URL.
    public init?(userText text: String) {
        guard let encoded = Self.encodingOnce(text) else { return nil }
        self.init(string: encoded, encodingInvalidCharacters: false)
    }

    /// `text` with each character a URL may not hold percent-encoded, and nothing else changed;
    /// nil for text with control characters (never part of a URL, and never to be guessed at).
    static func encodingOnce(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        // Where the authority (user, host, port) ends: `[` and `]` belong there, around an IPv6
        // address, and nowhere after it.
        var authorityEnd = 0
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[(colon + 1)...].starts(with: "//".utf8) {
            let start = colon + 3
            authorityEnd =
                bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
                ?? bytes.count
        }
        var output = [UInt8]()
        output.reserveCapacity(bytes.count)
        var sawFragment = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            defer { index += 1 }
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit {
                output.append(byte)
                continue
            }
            let isBracket = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
            let isSecondHash = byte == UInt8(ascii: "#") && sawFragment
            if byte == UInt8(ascii: "#") { sawFragment = true }
            if byte < 0x80, Self.allowed[Int(byte)], !(isBracket && index >= authorityEnd), !isSecondHash {
                output.append(byte)
            } else {
                output += Array(("%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)).utf8)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986's unreserved and reserved characters: what a URL holds as it is.
    private static let allowed: [Bool] = (0..<128).map { code in
        let scalar = Unicode.Scalar(UInt8(code))
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-._~:/?#[]@!$&'()*+,;=".unicodeScalars.contains(scalar)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
