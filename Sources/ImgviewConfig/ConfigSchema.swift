import ImgviewSupport

/// One setting a config file may have: named as the long option it sets the default of.
public struct ConfigSetting: Sendable {
    /// What values it takes.
    public enum Kind: Sendable {
        case choice([String])
        /// A number of seconds, a ratio: an integer or a decimal in the range.
        case number(ClosedRange<Double>)
        case integer(ClosedRange<Int>)
        case boolean
        /// Bytes: `500M`, `2G` (K = 1024), or a whole number of bytes.
        case size
        /// `#rrggbb`.
        case color
        /// A path: `~/` is the home folder, a relative one is relative to the config file's folder.
        case path
        /// Any text: a catalog file or URL.
        case text
    }

    public let name: String
    public let kind: Kind
    /// The environment variable that sets it too (and wins over the file), if any.
    public let environment: String?
    /// The default, as `imgview config` prints it.
    public let defaultText: String
    /// The commands it applies to, for `imgview config`.
    public let commands: String

    init(_ name: String, _ kind: Kind, environment: String? = nil, default defaultText: String, commands: String) {
        self.name = name
        self.kind = kind
        self.environment = environment
        self.defaultText = defaultText
        self.commands = commands
    }
}

/// Every setting of the config file, and the check of a file's values against them.
public enum ConfigSchema {
    public static let modes = ["auto", "kitty", "iterm", "sixel", "blocks", "ascii"]
    public static let symbols = ["auto", "block", "quad", "sextant", "ascii"]
    public static let colorChoices = ["auto", "none", "16", "256", "full"]
    public static let orders = ["name", "date", "mtime", "size", "shuffle"]

    public static let settings: [ConfigSetting] = [
        ConfigSetting("mode", .choice(modes), environment: "IMGVIEW_MODE", default: "auto", commands: "browse, show, demo"),
        ConfigSetting("symbols", .choice(symbols), environment: "IMGVIEW_SYMBOLS", default: "auto", commands: "browse, show"),
        ConfigSetting("colors", .choice(colorChoices), default: "auto", commands: "show, demo"),
        ConfigSetting("cell-aspect", .number(0.2...5), default: "2", commands: "browse, show"),
        ConfigSetting("background", .color, default: "#000000", commands: "show"),
        ConfigSetting("catalog", .text, environment: "IMGVIEW_CATALOG", default: "built-in", commands: "all"),
        ConfigSetting("cache-dir", .path, environment: "IMGVIEW_CACHE_DIR", default: "$XDG_CACHE_HOME/imgview", commands: "all"),
        ConfigSetting("cache-size", .size, environment: "IMGVIEW_CACHE_SIZE", default: "1G", commands: "all"),
        ConfigSetting("cache-max-entry", .size, environment: "IMGVIEW_CACHE_MAX_ENTRY", default: "50M", commands: "all"),
        ConfigSetting("offline", .boolean, environment: "IMGVIEW_OFFLINE", default: "false", commands: "all"),
        ConfigSetting("connect-timeout", .number(0.001...86_400), default: "30", commands: "browse, get, show, info"),
        ConfigSetting("max-time", .number(0.001...864_000), default: "600", commands: "browse, get, show, info"),
        ConfigSetting("retry", .integer(0...20), default: "3", commands: "browse, get, show, info"),
        ConfigSetting("max-filesize", .size, default: "512M", commands: "browse, get, show, info"),
        ConfigSetting("user-agent", .text, default: "imgview/VERSION", commands: "browse, get, show, info"),
        ConfigSetting("max-megapixels", .integer(1...10_000), default: "100", commands: "browse, show"),
        ConfigSetting("jobs", .integer(1...64), default: "4", commands: "get"),
        ConfigSetting("sort", .choice(orders), default: "name", commands: "browse"),
        ConfigSetting("reverse", .boolean, default: "false", commands: "browse"),
        ConfigSetting("recursive", .boolean, default: "false", commands: "browse"),
        ConfigSetting("slideshow-interval", .number(0.1...86_400), default: "5", commands: "browse"),
    ]

    /// The table of key bindings.
    public static let keysTable = "keys"

    public static func setting(_ name: String) -> ConfigSetting? {
        settings.first { $0.name == name }
    }

    /// Checks every value of `file` against the settings; the first that does not fit throws,
    /// with its line. Bindings in `[keys]` are only checked to be strings here.
    public static func validate(_ file: ConfigFile) throws(ConfigError) {
        for entry in file.entries {
            func fail(_ problem: String) -> ConfigError { ConfigError(path: file.path, line: entry.line, problem: problem) }
            if let table = entry.table {
                guard table == keysTable else {
                    let guess = NearestName.to(table, among: [keysTable])
                    throw fail("unknown table [\(table)]" + (guess.map { " (did you mean [\($0)]?)" } ?? " (only [keys] is known)"))
                }
                switch entry.value {
                case .string, .strings: continue
                case .other("a table") where entry.name.isEmpty: continue
                default:
                    throw fail(
                        "keys.\(entry.name): \(entry.value.kind), where a key name or a list of them goes (next = [\"l\", \"Right\"])")
                }
            }
            guard let setting = setting(entry.name) else {
                let guess = NearestName.to(entry.name, among: settings.map(\.name) + [keysTable])
                throw fail("unknown setting \"\(entry.name)\"" + (guess.map { " (did you mean \"\($0)\"?)" } ?? ""))
            }
            if let problem = problem(with: entry.value, for: setting) { throw fail("\(setting.name): \(problem)") }
        }
    }

    /// What is wrong with `value` for `setting`, or nil when it fits.
    static func problem(with value: ConfigFile.Value, for setting: ConfigSetting) -> String? {
        switch (setting.kind, value) {
        case (.choice(let choices), .string(let text)):
            return choices.contains(text) ? nil : "\"\(TerminalText.sanitized(text))\" is not one of \(choices.joined(separator: ", "))"
        case (.number(let range), .integer(let number)):
            return range.contains(Double(number)) ? nil : "\(number) is out of range (\(describe(range)))"
        case (.number(let range), .number(let number)):
            return range.contains(number) ? nil : "\(number) is out of range (\(describe(range)))"
        case (.integer(let range), .integer(let number)):
            return range.contains(number) ? nil : "\(number) is out of range (\(range.lowerBound) to \(range.upperBound))"
        case (.boolean, .boolean):
            return nil
        case (.size, .string(let text)):
            guard let bytes = ByteCount.parse(text), bytes > 0 else {
                return "\"\(TerminalText.sanitized(text))\" is not a size (500M, 2G)"
            }
            return nil
        case (.size, .integer(let bytes)):
            return bytes > 0 ? nil : "a size must be more than 0"
        case (.color, .string(let text)):
            return isColor(text) ? nil : "\"\(TerminalText.sanitized(text))\" is not a colour (#rrggbb)"
        case (.path, .string(let text)):
            return text.isEmpty ? "empty" : nil
        case (.text, .string(let text)):
            if text.isEmpty { return "empty" }
            // Sent as a header or read as a name: one line.
            return text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }
                ? "a control character in one line of text" : nil
        default:
            return "\(value.kind), where \(expected(setting.kind)) goes"
        }
    }

    private static func expected(_ kind: ConfigSetting.Kind) -> String {
        switch kind {
        case .choice(let choices): "one of \(choices.map { "\"\($0)\"" }.joined(separator: ", "))"
        case .number: "a number"
        case .integer: "a whole number"
        case .boolean: "true or false"
        case .size: "a size (\"500M\", \"2G\")"
        case .color: "a colour (\"#rrggbb\")"
        case .path: "a path (a string)"
        case .text: "a string"
        }
    }

    private static func describe(_ range: ClosedRange<Double>) -> String {
        func text(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        return "\(text(range.lowerBound)) to \(text(range.upperBound))"
    }

    static func isColor(_ text: String) -> Bool {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        return digits.count == 6 && digits.allSatisfy(\.isHexDigit)
    }

    /// Where the config file is: `$XDG_CONFIG_HOME/imgview/config.toml`, else `~/.config/imgview/config.toml`.
    public static func path(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/imgview/config.toml" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return (home == "/" ? "" : home) + "/.config/imgview/config.toml"
    }
}
