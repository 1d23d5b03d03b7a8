/// File names and paths as text, the way `NSString`'s path methods treat them: what is left of
/// Foundation's path handling once Foundation is gone (DECISIONS.md, "A light binary").
public enum PathText {
    /// The folder part of `path`: `/a/b` → `/a`, `/a` → `/`, `a` → ``; trailing slashes ignored.
    public static func folder(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The extension of a path's last component, without its dot: `a.tar.gz` → `gz`, `a.` → ``;
    /// none for `.profile` or `dir.d/file`.
    public static func fileExtension(of name: String) -> String {
        let component = lastComponent(of: name)
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { return "" }
        return String(component[component.index(after: dot)...])
    }

    /// The path without its last component's extension, dot included: `a.jpg` → `a`, `a.` → `a`.
    public static func stem(of name: String) -> String {
        let component = lastComponent(of: name)
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { return name }
        return String(name[..<dot])
    }

    private static func lastComponent(of path: String) -> Substring {
        path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path[...]
    }
}

extension StringProtocol {
    /// `%XX` escapes turned back into bytes; nil when an escape is malformed or the bytes are not UTF-8.
    public func percentDecoded() -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
