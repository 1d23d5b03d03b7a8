import ArgumentParser
import ImgviewBrowser
import ImgviewConfig
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview {
    /// `imgview config`: the settings every command goes by, and where each came from.
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Print the effective settings and where each came from.",
            discussion: """
                Each setting's value and its source: the command line (for the options every \
                command takes), an environment variable, the config file (with its line), or the \
                default. The file is $XDG_CONFIG_HOME/imgview/config.toml (else \
                ~/.config/imgview/config.toml); settings are named as the long options, and a [keys] \
                table binds the browser's actions to keys (see the README). A command line option \
                wins over the environment, which wins over the file. On a terminal: a table; \
                otherwise one tab-separated line per setting (name, value, source); with --json an \
                object: {"file": …, "read": …, "settings": [{"name", "value", "source", "line"}]}.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the settings as JSON.")
        var json = false

        /// One row: a setting's name, its value as text, and where it came from.
        struct Row {
            var name: String
            var value: String
            var source: SettingSource
        }

        func run() async throws {
            let settings = Settings.shared
            let rows = try self.rows(settings)
            switch OutputStyle.choose(json: json) {
            case .json:
                StandardOutput.write(Self.json(rows, settings: settings))
            case .plain:
                StandardOutput.write(rows.map { "\($0.name)\t\($0.value)\t\(Self.describe($0.source))\n" }.joined())
            case .table(let width):
                let table = TextTable(
                    header: ["SETTING", "VALUE", "FROM"], rows: rows.map { [$0.name, $0.value, Self.describe($0.source)] })
                StandardOutput.write(table.rendered(width: width, elastic: 1, minimumElasticWidth: 16))
                StandardOutput.write("\n" + Self.fileLine(settings) + "\n")
            }
        }

        /// Every setting as it stands for this command line.
        func rows(_ settings: Settings) throws -> [Row] {
            let environment = ProcessInfo.processInfo.environment
            var rows: [Row] = []
            func add<Value>(_ name: String, _ resolved: Resolved<Value>, _ text: (Value) -> String) {
                rows.append(Row(name: name, value: text(resolved.value), source: resolved.source))
            }
            for setting in ConfigSchema.settings {
                switch setting.name {
                case "mode":
                    add("mode", try ModeChoice.setting(nil, environment: environment)) { $0?.rawValue ?? "auto" }
                case "symbols":
                    add("symbols", try SymbolsChoice.setting(nil, environment: environment)) { $0.rawValue }
                case "catalog":
                    add("catalog", global.catalogSetting) { source in
                        switch source {
                        case .builtIn: "built-in"
                        case .file(let url): url.path
                        case .remote(let url): url.absoluteString
                        }
                    }
                case "cache-dir":
                    add("cache-dir", global.cacheDirectorySetting) { $0.path }
                case "cache-size":
                    add("cache-size", try global.cacheSizeLimitSetting()) { ByteCount.formatBinary($0) }
                case "cache-max-entry":
                    add("cache-max-entry", try global.cacheMaxEntrySetting()) { ByteCount.formatBinary($0) }
                case "offline":
                    add("offline", global.offlineSetting) { String($0) }
                default:
                    add(
                        setting.name,
                        settings.resolve(setting.name, commandLine: nil, fromFile: { Self.text(of: $0) }, standard: setting.defaultText),
                        { $0 })
                }
            }
            for action in BrowserAction.allCases {
                let line = settings.file?.entries.first { $0.table == ConfigSchema.keysTable && $0.name == action.rawValue }?.line
                let keys = settings.keymap.keys(for: action).map(\.name)
                rows.append(
                    Row(
                        name: "keys.\(action.rawValue)", value: keys.isEmpty ? "(none)" : keys.joined(separator: " "),
                        source: line.map { .file(path: settings.file?.path ?? "", line: $0) } ?? .standard))
            }
            return rows
        }

        /// A file value as the table shows it.
        static func text(of value: ConfigFile.Value) -> String? {
            switch value {
            case .string(let text): text
            case .integer(let number): String(number)
            case .number(let number): String(number)
            case .boolean(let flag): String(flag)
            case .strings(let list): list.joined(separator: " ")
            case .other: nil
            }
        }

        static func describe(_ source: SettingSource) -> String {
            switch source {
            case .commandLine: "command line"
            case .environment(let variable): variable
            case .file(let path, let line): "\(URL(fileURLWithPath: path).lastPathComponent):\(line)"
            case .standard: "default"
            }
        }

        static func fileLine(_ settings: Settings) -> String {
            guard let path = settings.path else { return "config file: none (no home folder)" }
            if settings.isIgnored { return "config file: \(path) (ignored: --no-config)" }
            return "config file: \(path) (\(settings.file == nil ? "not found" : "read"))"
        }

        static func json(_ rows: [Row], settings: Settings) -> String {
            let items = rows.map { row -> String in
                let (source, line, variable): (String, Int?, String?)
                switch row.source {
                case .commandLine: (source, line, variable) = ("command line", nil, nil)
                case .environment(let name): (source, line, variable) = ("environment", nil, name)
                case .file(_, let number): (source, line, variable) = ("file", number, nil)
                case .standard: (source, line, variable) = ("default", nil, nil)
                }
                return "{\"name\": \(JSONText.string(row.name)), \"value\": \(JSONText.string(row.value)), "
                    + "\"source\": \(JSONText.string(source)), \"line\": \(line.map(String.init) ?? "null"), "
                    + "\"variable\": \(JSONText.string(variable))}"
            }
            return "{\"file\": \(JSONText.string(settings.path)), \"read\": \(settings.file != nil), \"ignored\": \(settings.isIgnored), "
                + "\"settings\": [\n  " + items.joined(separator: ",\n  ") + "\n]}\n"
        }
    }
}
