import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns the bytes of a catalog file or page into a validated `Catalog`.
///
/// Validation is by hand rather than through `Decodable` so every message can name the entry
/// at fault and say what is wrong with it in words a user understands.
public struct CatalogParser: Sendable {
    /// The origin named in errors.
    public let origin: CatalogOrigin
    /// Relative URLs in the catalog resolve against this (the file's folder, or the page's URL).
    public let baseURL: URL?

    /// The base URL up to its path's last `/`, when relative paths may be appended to it as text.
    private let baseFolder: String?

    public init(origin: CatalogOrigin, baseURL: URL?) {
        self.origin = origin
        self.baseURL = baseURL
        self.baseFolder = baseURL.flatMap(Self.folder(of:))
    }

    /// Parses one catalog document; a page of a paged catalog may be empty only if it has a `next`.
    public func parse(_ data: Data) throws(CatalogError) -> Catalog {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(CatalogError) -> Catalog in try parse(bytes.bindMemory(to: UInt8.self)) }
        }
        return try result.get()
    }

    /// Reads the catalog in one pass; broken JSON is reported as such wherever it breaks, even
    /// after an entry that is wrong in another way.
    private func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(CatalogError) -> Catalog {
        var scanner = JSONScanner(bytes)
        do {
            let catalog = try parseDocument(&scanner)
            try scanner.finish()
            return catalog
        } catch let error as JSONScanner.SyntaxError {
            throw notJSON(error, in: scanner)
        } catch let error as CatalogError {
            var checker = JSONScanner(bytes)
            do {
                try checker.skipValue()
                try checker.finish()
            } catch {
                throw notJSON(error, in: checker)
            }
            throw error
        } catch {
            // parseDocument throws nothing else.
            throw fail(.notJSON(String(describing: error)))
        }
    }

    private func notJSON(_ error: JSONScanner.SyntaxError, in scanner: JSONScanner) -> CatalogError {
        let (line, column) = scanner.location(of: error.offset)
        // The problem names bytes of the text only as safe ASCII, but a message is sanitised wherever it comes from.
        return fail(.notJSON(TerminalText.sanitized("\(error.problem) at line \(line), column \(column)")))
    }

    /// Reads a document, throwing a `JSONScanner.SyntaxError` where its syntax breaks and a
    /// `CatalogError` where the catalog is wrong.
    private func parseDocument(_ scanner: inout JSONScanner) throws -> Catalog {
        guard try scanner.peekKind() == .object else { throw fail(.notAnObject) }
        // Where the last "images" and "next" members' values are (a repeated key's last value counts).
        var imagesAt: Int?
        var nextAt: Int?
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: first) {
            first = false
            if key == "images" { imagesAt = scanner.position }
            if key == "next" { nextAt = scanner.position }
            try scanner.skipValue()
        }
        let documentEnd = scanner.position
        defer { scanner.move(to: documentEnd) }

        var next: URL?
        if let nextAt {
            scanner.move(to: nextAt)
            switch try scanner.peekKind() {
            case .null:
                break
            case .string:
                let text = try scanner.readString()
                guard let url = resolve(text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                    throw fail(.invalidNext(text))
                }
                next = url
            default:
                let valueStart = scanner.position
                try scanner.skipValue()
                throw fail(.invalidNext(String(decoding: scanner.bytes[valueStart..<scanner.position], as: UTF8.self)))
            }
        }

        guard let imagesAt else { throw fail(.missingImages) }
        scanner.move(to: imagesAt)
        guard try scanner.peekKind() == .array else { throw fail(.imagesNotAnArray) }
        var images: [AppImage] = []
        var seen = Set<String>()
        // Room for an entry per 64 bytes of text (few are shorter), rather than growing the set of
        // names by doubling, which rehashes it each time.
        let estimate = min(scanner.bytes.count / 64, 1 << 20)
        images.reserveCapacity(estimate)
        seen.reserveCapacity(estimate)
        var index = 0
        try scanner.beginArray()
        while try scanner.nextElement(first: index == 0) {
            let image = try parseEntry(&scanner, index: index)
            guard seen.insert(image.name).inserted else {
                throw CatalogError(origin: origin, entry: .index(index, name: image.name), problem: .duplicateName(image.name))
            }
            images.append(image)
            index += 1
        }
        if images.isEmpty && next == nil { throw fail(.empty) }
        return Catalog(images: images, next: next, origin: origin)
    }

    /// A member's value as the entry checks see it.
    private enum Field {
        case missing, null, string(String), other
    }

    private func parseEntry(_ scanner: inout JSONScanner, index: Int) throws -> AppImage {
        guard try scanner.peekKind() == .object else {
            throw CatalogError(origin: origin, entry: .index(index, name: nil), problem: .entryNotAnObject)
        }
        var fields: (name: Field, title: Field, url: Field) = (.missing, .missing, .missing)
        try scanner.beginObject()
        var first = true
        while let key = try scanner.nextKey(first: first) {
            first = false
            let value: Field
            switch try scanner.peekKind() {
            case .string where key == "name" || key == "title" || key == "url": value = .string(try scanner.readString())
            case .null:
                try scanner.skipValue()
                value = .null
            default:
                try scanner.skipValue()
                value = .other
            }
            switch key {
            case "name": fields.name = value
            case "title": fields.title = value
            case "url": fields.url = value
            default: break
            }
        }

        var name: String?
        if case .string(let text) = fields.name { name = text }
        func fail(_ problem: CatalogError.Problem) -> CatalogError {
            CatalogError(origin: origin, entry: .index(index, name: name), problem: problem)
        }
        if case .missing = fields.name { throw fail(.missingField("name")) }
        guard let name else { throw fail(.fieldNotAString("name")) }
        guard AppImage.isValidName(name) else { throw fail(.invalidName(name)) }

        var title: String?
        switch fields.title {
        case .missing, .null: break
        case .string(let text): title = text.isEmpty ? nil : text
        case .other: throw fail(.fieldNotAString("title"))
        }

        let urlText: String
        switch fields.url {
        case .missing: throw fail(.missingField("url"))
        case .string(let text): urlText = text
        case .null, .other: throw fail(.fieldNotAString("url"))
        }
        // Most catalogs' URLs are plain http(s) ones: checked here, they need no URL made until used.
        if Self.isPlainWebURL(urlText) { return AppImage(name: name, title: title, urlString: urlText) }
        guard let url = resolve(urlText) else { throw fail(.invalidURL(urlText)) }
        guard let scheme = url.scheme?.lowercased(), AppImage.allowedSchemes.contains(scheme) else {
            throw fail(.unsupportedScheme(url.scheme ?? ""))
        }
        if scheme != "file" && (url.host ?? "").isEmpty { throw fail(.invalidURL(urlText)) }
        return AppImage(name: name, title: title, url: url)
    }

    /// An absolute URL for `text`, resolving a relative reference against the catalog's base.
    ///
    /// Resolving with `URL(string:relativeTo:)` is most of the time a large catalog's parse takes
    /// (DECISIONS.md, "Catalogs: our own JSON scanner, URLs kept as text"); a reference that is a plain relative path (no dot segments, query, fragment
    /// or percent sign) resolves, by RFC 3986's rules, to the base's folder followed by the path,
    /// which one `URL(string:)` makes. Anything else takes Foundation's way.
    private func resolve(_ text: String) -> URL? {
        guard !text.isEmpty, !Self.hasSpaceOrControl(text) else { return nil }
        if Self.hasScheme(text) {
            guard let url = URL(string: text), url.scheme != nil else { return nil }
            return url
        }
        if let folder = baseFolder, Self.isPlainRelativePath(text) {
            return URL(string: folder + text)
        }
        guard let url = URL(string: text, relativeTo: baseURL)?.absoluteURL, url.scheme != nil else { return nil }
        return url
    }

    /// `baseURL` up to its path's last `/`, if it has a path, no query or fragment, no dot segments,
    /// and only printable ASCII.
    private static func folder(of baseURL: URL) -> String? {
        guard baseURL.query == nil, baseURL.fragment == nil, baseURL.scheme != nil else { return nil }
        let text = baseURL.absoluteString
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }),
            let schemeEnd = text.firstRange(of: "://"), let slash = text.lastIndex(of: "/"), slash >= schemeEnd.upperBound,
            text[schemeEnd.upperBound...].contains("/"),
            !text[schemeEnd.upperBound...].split(separator: "/").dropFirst().contains(where: { $0 == "." || $0 == ".." })
        else { return nil }
        return String(text[...slash])
    }

    /// Whether `text` is an absolute `http://` or `https://` URL of the plainest kind, which
    /// `URL(string:)` takes as it is: a host of letters, digits, dots and hyphens, an optional
    /// port, then only RFC 3986's path and query characters (percent signs before two hex digits),
    /// no fragment.
    static func isPlainWebURL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var index: Int
            if bytes.starts(with: "http://".utf8) {
                index = 7
            } else if bytes.starts(with: "https://".utf8) {
                index = 8
            } else {
                return false
            }
            let hostStart = index
            while index < bytes.count, PlainURLCharacters.host[Int(bytes[index])] { index += 1 }
            guard index > hostStart else { return false }
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                var port = 0
                let digitsStart = index + 1
                index = digitsStart
                while index < bytes.count, isDigit(bytes[index]), index - digitsStart < 5 {
                    port = port * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                guard index > digitsStart, port <= 65535 else { return false }
            }
            guard index == bytes.count || bytes[index] == UInt8(ascii: "/") else { return false }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else { return false }
                    index += 3
                } else {
                    guard PlainURLCharacters.pathOrQuery[Int(byte)] else { return false }
                    index += 1
                }
            }
            return true
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// Whitespace anywhere, or a control character: what the catalog format never allows in a URL.
    private static func hasSpaceOrControl(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.contains { $0 <= 0x20 } }
        return text.contains { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true }
    }

    /// Whether `text` starts with `scheme:` (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`).
    private static func hasScheme(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), isLetter(first) else { return false }
        while let byte = bytes.next() {
            if byte == UInt8(ascii: ":") { return true }
            guard
                isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { return false }
        }
        return false
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// A relative path of plain segments: printable ASCII, no leading `/`, no `.` or `..` segment,
    /// no query, fragment, colon or percent sign.
    private static func isPlainRelativePath(_ text: String) -> Bool {
        guard text.utf8.first != UInt8(ascii: "/"),
            text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"?#%:\\".utf8.contains($0) })
        else { return false }
        return !text.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
    }

    private func fail(_ problem: CatalogError.Problem) -> CatalogError {
        CatalogError(origin: origin, problem: problem)
    }
}

/// Which bytes a plain URL's host, and its path and query, may hold (`CatalogParser.isPlainWebURL`).
private enum PlainURLCharacters {
    static let host = table("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
    static let pathOrQuery = table("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?")

    private static func table(_ characters: String) -> [Bool] {
        var table = [Bool](repeating: false, count: 256)
        for byte in characters.utf8 { table[Int(byte)] = true }
        return table
    }
}
