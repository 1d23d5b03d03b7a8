import ImgviewBrowser
import ImgviewConfig
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Where a setting's value came from, as `imgview config` says it.
enum SettingSource: Equatable {
    case commandLine
    case environment(String)
    case file(path: String, line: Int)
    case standard
}

/// A setting's value and where it came from.
struct Resolved<Value> {
    var value: Value
    var source: SettingSource
}

/// The config file's settings, checked, and the keymap it makes; what every command's options
/// fall back on after the command line and the environment.
///
/// Read once per process, when a command first asks (never for `--help` or `--version`), and only
/// if the file exists: a `stat` that fails is all it costs without one.
struct Settings: Sendable {
    /// Where the file is looked for (nil without a home folder), and what it holds if it was read.
    let path: String?
    let file: ConfigFile?
    /// `--no-config` or `IMGVIEW_NO_CONFIG=1`: the file is not read.
    let isIgnored: Bool
    /// The keymap a `[keys]` table made; nil when the file has none.
    private let boundKeymap: Keymap?

    init(path: String?, file: ConfigFile?, isIgnored: Bool, keymap: Keymap?) {
        self.path = path
        self.file = file
        self.isIgnored = isIgnored
        boundKeymap = keymap
    }

    /// Which key does what in the browser: the standard keys (made only when asked for, as only the
    /// browser asks), with the file's `[keys]` over them.
    var keymap: Keymap { boundKeymap ?? .standard }

    /// This process's settings: its command line says whether to read the file. Only the variables
    /// it needs are looked up (`getenv`, not a dictionary of the whole environment).
    static let current: Result<Settings, ConfigError> = {
        let environment = variables(["XDG_CONFIG_HOME", "HOME", "IMGVIEW_NO_CONFIG"])
        return load(ignoring: ignoresFile(arguments: CommandLine.arguments, environment: environment), environment: environment)
    }()

    /// The environment variables `names` that are set: each looked up alone, where
    /// `ProcessInfo`'s `environment` makes a dictionary of every variable each time it is asked.
    static func variables(_ names: [String]) -> [String: String] {
        var found: [String: String] = [:]
        for name in names {
            if let value = variable(name) { found[name] = value }
        }
        return found
    }

    /// The environment variable `name`, if it is set.
    static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// `current`; a file with an error ends the process there, with its one line and exit 2.
    /// Asked for only where an option needs it, so `--help`, `--version` and commands without
    /// such options never read the file.
    static var shared: Settings {
        switch current {
        case .success(let settings): settings
        case .failure(let error): Imgview.exit(reporting: error)
        }
    }

    /// Whether `--no-config` (before any `--`) or `IMGVIEW_NO_CONFIG` says to leave the file alone.
    static func ignoresFile(arguments: [String], environment: [String: String]) -> Bool {
        if ["1", "true", "yes"].contains(environment["IMGVIEW_NO_CONFIG"]?.lowercased() ?? "") { return true }
        return arguments.prefix { $0 != "--" }.contains("--no-config")
    }

    /// Reads and checks the file `environment` points to, unless `ignoring`.
    static func load(ignoring: Bool, environment: [String: String]) -> Result<Settings, ConfigError> {
        let path = ConfigSchema.path(environment: environment)
        guard !ignoring, let path else { return .success(Settings(path: path, file: nil, isIgnored: ignoring, keymap: nil)) }
        do throws(ConfigError) {
            guard let file = try ConfigFile.load(path: path) else {
                return .success(Settings(path: path, file: nil, isIgnored: false, keymap: nil))
            }
            try ConfigSchema.validate(file)
            let bindings = file.entries.filter { $0.table == ConfigSchema.keysTable && !$0.name.isEmpty }.map { entry in
                let keys: [String]
                switch entry.value {
                case .string(let key): keys = [key]
                case .strings(let list): keys = list
                default: keys = []
                }
                return Keymap.Binding(action: entry.name, keys: keys, line: entry.line)
            }
            var keymap: Keymap?
            do throws(Keymap.Problem) {
                if !bindings.isEmpty { keymap = try Keymap.standard.applying(bindings) }
            } catch {
                throw ConfigError(path: path, line: error.line, problem: "keys: " + error.message)
            }
            return .success(Settings(path: path, file: file, isIgnored: false, keymap: keymap))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Resolving

    /// The value of setting `name`: `commandLine` if given, else the environment's (read by
    /// `fromEnvironment`, which throws on a bad value), else the file's (already checked), else `standard`.
    ///
    /// - Parameter environment: where the variable is looked up; nil: this process's environment.
    func resolve<Value>(
        _ name: String, commandLine: Value?, environment: [String: String]? = nil,
        fromEnvironment: (String) throws -> Value?, fromFile: (ConfigFile.Value) -> Value?, standard: Value
    ) rethrows -> Resolved<Value> {
        if let commandLine { return Resolved(value: commandLine, source: .commandLine) }
        if let variable = ConfigSchema.setting(name)?.environment,
            let text = environment.map({ $0[variable] }) ?? getenv(variable).map({ String(cString: $0) }), !text.isEmpty,
            let value = try fromEnvironment(text)
        {
            return Resolved(value: value, source: .environment(variable))
        }
        if let file, let entry = file.entry(name), let value = fromFile(entry.value) {
            return Resolved(value: value, source: .file(path: file.path, line: entry.line))
        }
        return Resolved(value: standard, source: .standard)
    }

    /// The value of setting `name`, which no environment variable sets: `commandLine` if given,
    /// else the file's, else `standard`.
    func resolve<Value>(_ name: String, commandLine: Value?, fromFile: (ConfigFile.Value) -> Value?, standard: Value) -> Resolved<Value> {
        resolve(name, commandLine: commandLine, environment: [:], fromEnvironment: { _ in nil }, fromFile: fromFile, standard: standard)
    }

    /// A number setting (seconds, a ratio): the command line's, else the file's, else `standard`.
    func number(_ name: String, commandLine: Double?, standard: Double) -> Double {
        resolve(name, commandLine: commandLine, fromFile: Self.number, standard: standard).value
    }

    /// A whole-number setting: the command line's, else the file's, else `standard`.
    func integer(_ name: String, commandLine: Int?, standard: Int) -> Int {
        resolve(name, commandLine: commandLine, fromFile: Self.integer, standard: standard).value
    }

    /// A true-or-false setting: the command line's, else the file's, else `standard`.
    func boolean(_ name: String, commandLine: Bool?, standard: Bool) -> Bool {
        resolve(name, commandLine: commandLine, fromFile: Self.boolean, standard: standard).value
    }

    /// A text setting (a choice, a size, a colour): the command line's, else the file's, else `standard`.
    func text(_ name: String, commandLine: String?, standard: String) -> String {
        resolve(name, commandLine: commandLine, fromFile: Self.text, standard: standard).value
    }

    static func number(_ value: ConfigFile.Value) -> Double? {
        switch value {
        case .integer(let number): Double(number)
        case .number(let number): number
        default: nil
        }
    }

    static func integer(_ value: ConfigFile.Value) -> Int? {
        if case .integer(let number) = value { return number }
        return nil
    }

    static func boolean(_ value: ConfigFile.Value) -> Bool? {
        if case .boolean(let flag) = value { return flag }
        return nil
    }

    /// A string as it is; a size given as a whole number of bytes as its digits.
    static func text(_ value: ConfigFile.Value) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
    }

    /// A path from the file: `~/` is the home folder, a relative path is relative to the file's folder.
    func path(_ text: String) -> String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        if text == "~" { return home }
        if text.hasPrefix("~/") { return home + text.dropFirst() }
        if text.hasPrefix("/") { return text }
        let folder = URL(fileURLWithPath: file?.path ?? path ?? ".").deletingLastPathComponent()
        return folder.appendingPathComponent(text).standardizedFileURL.path
    }
}
