/// Where each setting of a config file is written: TOMLKit gives values without their place, so
/// messages about a value find its line here, by the key before its `=` under its table's header.
struct ConfigLines {
    /// Each line's table (nil before the first header) and key, where the line sets one.
    private var keys: [(line: Int, table: String?, key: String)] = []
    private var tables: [(line: Int, name: String)] = []

    init(_ text: String) {
        var table: String?
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                let name = line.drop { $0 == "[" }.prefix { $0 != "]" }.trimmed
                table = Self.unquoted(name)
                tables.append((offset + 1, table ?? ""))
                continue
            }
            guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
            let key = Self.unquoted(line[..<equals].trimmed)
            // A dotted key (`keys.next = …`) sets `next` in `keys`.
            if let dot = key.firstIndex(of: "."), !key.hasPrefix("\"") {
                keys.append((offset + 1, String(key[..<dot]), String(key[key.index(after: dot)...])))
            } else {
                keys.append((offset + 1, table, key))
            }
        }
    }

    /// The line that sets `key` in `table` (nil: the top level).
    func line(of key: String, in table: String?) -> Int? {
        keys.first { $0.key == key && $0.table == table }?.line
    }

    /// The line of the `[table]` header.
    func line(ofTable name: String) -> Int? {
        tables.first { $0.name == name }?.line ?? keys.first { $0.table == name }?.line
    }

    private static func unquoted(_ text: Substring) -> String {
        let trimmed = text.trimmed
        if trimmed.count >= 2, let first = trimmed.first, first == "\"" || first == "'", trimmed.last == first {
            return String(trimmed.dropFirst().dropLast())
        }
        return String(trimmed)
    }
}

extension Substring {
    fileprivate var trimmed: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return text
    }
}
