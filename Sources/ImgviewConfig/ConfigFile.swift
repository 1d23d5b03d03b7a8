import ImgviewSupport
import SystemPackage
internal import TOMLKit

#if canImport(Glibc)
    import Glibc
#endif

/// imgview's config file as read: every setting with its value and the line it is on. The only
/// importer of TOMLKit; what leaves here is plain values.
///
/// The file is TOML: flat settings named as the long options (`mode = "blocks"`) and a `[keys]`
/// table binding actions to keys. What the values mean is checked by the caller, which names the
/// line on a problem; here only what TOML itself allows is checked.
public struct ConfigFile: Sendable, Equatable {
    /// A value as TOML typed it.
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        /// An array of strings (a `[keys]` binding).
        case strings([String])
        /// Anything else (a date, a table, a mixed array), by its TOML type's name.
        case other(String)

        /// What the value is, in a message: "a string", "an integer"…
        public var kind: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .number: "a number"
            case .boolean: "true or false"
            case .strings: "a list of strings"
            case .other(let type): type
            }
        }
    }

    /// One `name = value` line; `table` is nil for the flat settings, else the table's name.
    public struct Entry: Sendable, Equatable {
        public var table: String?
        public var name: String
        public var value: Value
        public var line: Int
    }

    /// Files larger than this are refused: a config file is a few lines.
    public static let maxBytes = 1 << 20

    /// Where it was read from.
    public let path: String
    /// Its settings in the order they are written.
    public let entries: [Entry]

    public init(path: String, entries: [Entry]) {
        self.path = path
        self.entries = entries
    }

    /// The flat setting `name`, if the file has it.
    public func entry(_ name: String) -> Entry? {
        entries.first { $0.table == nil && $0.name == name }
    }

    /// Reads the file at `path`; nil when there is none. A file that cannot be read or is not
    /// TOML throws, naming the line where there is one.
    public static func load(path: String) throws(ConfigError) -> ConfigFile? {
        // A folder on the way that cannot be searched (another user's HOME, as under `setpriv`)
        // hides whether there is a file: there is none of this user's.
        var found = stat()
        if stat(path, &found) != 0, [ENOENT, ENOTDIR, EACCES].contains(errno) { return nil }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                path, .readOnly, options: [.closeOnExec, .nonBlocking, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)])
        } catch {
            let code = Errno.code(of: error)
            if code == ENOENT || code == ENOTDIR { return nil }
            throw ConfigError(path: path, line: nil, problem: "cannot read it: " + String(cString: strerror(code)).lowercased())
        }
        defer { try? file.close() }
        var status = stat()
        guard fstat(file.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError(path: path, line: nil, problem: "not a regular file")
        }
        guard status.st_size <= maxBytes else { throw ConfigError(path: path, line: nil, problem: "larger than 1 MiB") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let read: Int
            do {
                read = try bytes.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
            } catch {
                let reason = String(cString: strerror(Errno.code(of: error))).lowercased()
                throw ConfigError(path: path, line: nil, problem: "cannot read it: " + reason)
            }
            if read == 0 { break }
            count += read
        }
        guard count <= maxBytes else { throw ConfigError(path: path, line: nil, problem: "larger than 1 MiB") }
        return try parse(Array(bytes[..<count]), path: path)
    }

    /// Reads `bytes` as a config file that came from `path`.
    public static func parse(_ bytes: [UInt8], path: String) throws(ConfigError) -> ConfigFile {
        // TOML is UTF-8 without NUL: say where it is not, rather than read a damaged file as an empty one.
        if let bad = firstInvalidByte(in: bytes) {
            let line = bytes[..<bad].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            let problem = bytes[bad] == 0 ? "a NUL byte (a config file is text)" : "not UTF-8 text"
            throw ConfigError(path: path, line: line, problem: problem)
        }
        // toml++ asserts, and so aborts, on a key that starts with neither a key character nor a
        // quote; such a file is refused here first.
        if let (line, problem) = KeyStarts.firstBadKey(in: bytes) { throw ConfigError(path: path, line: line, problem: problem) }
        let text = String(decoding: bytes, as: UTF8.self)
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: path, line: error.source.begin.line, problem: Self.problem(from: error.description))
        } catch {
            throw ConfigError(path: path, line: nil, problem: "not TOML")
        }
        let lines = ConfigLines(text)
        var entries: [Entry] = []
        for key in table.keys {
            guard let value = table[key] else { continue }
            if let inner = value.table {
                for innerKey in inner.keys {
                    guard let innerValue = inner[innerKey] else { continue }
                    entries.append(
                        Entry(
                            table: key, name: innerKey, value: Self.value(of: innerValue),
                            line: lines.line(of: innerKey, in: key) ?? lines.line(ofTable: key) ?? 1))
                }
                if inner.isEmpty {
                    entries.append(Entry(table: key, name: "", value: .other("a table"), line: lines.line(ofTable: key) ?? 1))
                }
                continue
            }
            entries.append(Entry(table: nil, name: key, value: Self.value(of: value), line: lines.line(of: key, in: nil) ?? 1))
        }
        return ConfigFile(path: path, entries: entries.sorted { $0.line < $1.line })
    }

    private static func value(of value: TOMLValueConvertible) -> Value {
        switch value.type {
        case .string: return .string(value.string ?? "")
        case .int: return .integer(value.int ?? 0)
        case .double: return .number(value.double ?? 0)
        case .bool: return .boolean(value.bool ?? false)
        case .array:
            guard let array = value.array else { return .other("an array") }
            var strings: [String] = []
            for element in array {
                guard let string = element.string else { return .other("an array of other things than strings") }
                strings.append(string)
            }
            return .strings(strings)
        case .table: return .other("a table")
        case .date: return .other("a date")
        case .time: return .other("a time")
        case .dateTime: return .other("a date and time")
        }
    }

    /// toml++'s message without its "Error while parsing …: " lead.
    static func problem(from description: String) -> String {
        guard description.hasPrefix("Error while parsing"), let colon = description.firstIndex(of: ":") else {
            return TerminalText.sanitized(description)
        }
        return TerminalText.sanitized(String(description[description.index(after: colon)...].drop { $0 == " " }))
    }

    /// The offset of the first byte that is not part of valid UTF-8 text, or is NUL.
    static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 { return index }
            if byte < 0x80 {
                index += 1
                continue
            }
            let length: Int
            let minimum: UInt32
            switch byte {
            case 0xC2...0xDF: (length, minimum) = (2, 0x80)
            case 0xE0...0xEF: (length, minimum) = (3, 0x800)
            case 0xF0...0xF4: (length, minimum) = (4, 0x10000)
            default: return index
            }
            guard index + length <= bytes.count else { return index }
            var scalar = UInt32(byte) & (0xFF >> (length + 1))
            for offset in 1..<length {
                let next = bytes[index + offset]
                guard next & 0xC0 == 0x80 else { return index }
                scalar = scalar << 6 | UInt32(next & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return index }
            index += length
        }
        return nil
    }
}

/// A problem with the config file: `path:line: problem`, exit 2 (a usage error, as a bad option is).
public struct ConfigError: Error, Sendable, Equatable, UserFacingError {
    public let path: String
    public let line: Int?
    public let problem: String

    public init(path: String, line: Int?, problem: String) {
        self.path = path
        self.line = line
        self.problem = problem
    }

    public var message: String {
        "\(TerminalText.sanitized(path))\(line.map { ":\($0)" } ?? ""): \(problem) (--no-config ignores the file)"
    }

    public var exitStatus: ExitStatus { .usage }
}
