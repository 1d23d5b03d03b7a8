import ArgumentParser
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The options every subcommand takes: where the catalog and the cache are, and whether to stay offline.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A catalog file or http(s) URL (env IMGVIEW_CATALOG; default: the built-in catalog).",
            valueName: "file-or-url"))
    var catalog: String?

    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The cache folder (env IMGVIEW_CACHE_DIR; default: $XDG_CACHE_HOME/imgview or ~/.cache/imgview).",
            valueName: "dir"))
    var cacheDirectory: String?

    @Option(
        name: .customLong("cache-size"),
        help: ArgumentHelp(
            "The most the disk cache keeps, e.g. 500M, 2G (K = 1024; env IMGVIEW_CACHE_SIZE; default 1G).", valueName: "size"))
    var cacheSize: String?

    @Option(
        name: .customLong("cache-max-entry"),
        help: ArgumentHelp(
            "The largest body the disk cache keeps, e.g. 50M (env IMGVIEW_CACHE_MAX_ENTRY; default 50M, at most 1/8 of --cache-size); larger ones are downloaded without being stored or hashed.",
            valueName: "size"))
    var cacheMaxEntry: String?

    @Flag(name: .long, help: "Use only what is cached; never touch the network (env IMGVIEW_OFFLINE=1).")
    var offline = false

    @Flag(
        name: .customLong("no-config"),
        help: "Do not read the config file ($XDG_CONFIG_HOME/imgview/config.toml; env IMGVIEW_NO_CONFIG=1).")
    var noConfig = false

    /// Every option at its default, as a command line without any of them is parsed: for a
    /// command made without the parser (`Info.withPlainArguments`). An option added above is
    /// added here too; a test compares this with what the parser makes.
    static var unset: Self {
        var options = Self()
        options.catalog = nil
        options.cacheDirectory = nil
        options.cacheSize = nil
        options.cacheMaxEntry = nil
        options.offline = false
        options.noConfig = false
        return options
    }

    /// Checks what was typed and the environment, never the config file: ArgumentParser runs this
    /// for `--help` too, which must not read the file.
    func validate() throws {
        if let cacheSize { _ = try Self.size(cacheSize, option: "--cache-size") }
        if let text = Settings.variable("IMGVIEW_CACHE_SIZE"), !text.isEmpty {
            _ = try Self.size(text, option: "IMGVIEW_CACHE_SIZE")
        }
        if let cacheMaxEntry { _ = try Self.size(cacheMaxEntry, option: "--cache-max-entry") }
        if let text = Settings.variable("IMGVIEW_CACHE_MAX_ENTRY"), !text.isEmpty {
            _ = try Self.size(text, option: "IMGVIEW_CACHE_MAX_ENTRY")
        }
    }

    /// The largest body the cache keeps: the option, else the environment, else the config file,
    /// else 50 MiB; never more than an eighth of the cache's size limit.
    func cacheMaxEntryBytes() throws -> Int64 {
        DiskCache.maxEntry(try cacheMaxEntrySetting().value, sizeLimit: try cacheSizeLimit())
    }

    func cacheMaxEntrySetting() throws -> Resolved<Int64> {
        try Settings.shared.resolve(
            "cache-max-entry", commandLine: try cacheMaxEntry.map { try Self.size($0, option: "--cache-max-entry") },
            fromEnvironment: { try Self.size($0, option: "IMGVIEW_CACHE_MAX_ENTRY") },
            fromFile: { Settings.text($0).flatMap(ByteCount.parse) }, standard: DiskCache.defaultMaxEntry)
    }

    /// The cache's size limit: the option, else the environment, else the config file, else 1 GiB.
    func cacheSizeLimit() throws -> Int64 {
        try cacheSizeLimitSetting().value
    }

    func cacheSizeLimitSetting() throws -> Resolved<Int64> {
        try Settings.shared.resolve(
            "cache-size", commandLine: try cacheSize.map { try Self.size($0, option: "--cache-size") },
            fromEnvironment: { try Self.size($0, option: "IMGVIEW_CACHE_SIZE") }, fromFile: { Settings.text($0).flatMap(ByteCount.parse) },
            standard: DiskCache.defaultSizeLimit)
    }

    /// `text` as a size in bytes; a usage error naming `option` when it is not one.
    static func size(_ text: String, option: String) throws -> Int64 {
        guard let bytes = ByteCount.parse(text), bytes > 0 else {
            throw ValidationError("\(option): \"\(TerminalText.sanitized(text))\" is not a size (use e.g. 500M, 2G)")
        }
        return bytes
    }

    /// Whether `argument` may be one of the global options `movingLeadingGlobals` moves: without
    /// one, it has nothing to do.
    static func mayBeMoved(_ argument: String) -> Bool {
        argument.hasPrefix("--catalog") || argument.hasPrefix("--cache-") || argument == "--offline" || argument == "--no-config"
    }

    /// `arguments` with global options written before the subcommand moved after it.
    ///
    /// ArgumentParser reads a subcommand's options only after its name; users write
    /// `imgview --catalog c.json list` as often as `imgview list --catalog c.json`, and
    /// `imgview --cache-dir d cache ls` as well as `imgview cache ls --cache-dir d`.
    /// `nested` names each subcommand's own subcommands (`cache` → `ls`, `stats`, …).
    static func movingLeadingGlobals(in arguments: [String], subcommands: Set<String>, nested: [String: Set<String>] = [:]) -> [String] {
        var globals: [String] = []
        var path: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if ["--catalog", "--cache-dir", "--cache-size", "--cache-max-entry"].contains(argument), index + 1 < arguments.count {
                globals += arguments[index...index + 1]
                index += 2
            } else if argument == "--offline" || argument == "--no-config" || argument.hasPrefix("--catalog=")
                || argument.hasPrefix("--cache-dir=")
                || argument.hasPrefix("--cache-size=") || argument.hasPrefix("--cache-max-entry=")
            {
                globals.append(argument)
                index += 1
            } else if path.isEmpty, subcommands.contains(argument) {
                path.append(argument)
                index += 1
            } else if path.count == 1, nested[path[0]]?.contains(argument) == true {
                path.append(argument)
                index += 1
            } else {
                break
            }
        }
        guard !globals.isEmpty, !path.isEmpty else { return arguments }
        return path + globals + arguments[index...]
    }

    /// Where the catalog comes from: the option, else the environment, else the config file, else
    /// the built-in catalog. A relative catalog path in the file is relative to the file's folder.
    var catalogSource: CatalogSource {
        catalogSetting.value
    }

    var catalogSetting: Resolved<CatalogSource> {
        let settings = Settings.shared
        return settings.resolve(
            "catalog", commandLine: catalog.map { CatalogSource(argument: $0) }, fromEnvironment: { CatalogSource(argument: $0) },
            fromFile: { value in
                Settings.text(value).map { $0.contains("://") ? CatalogSource(argument: $0) : CatalogSource(argument: settings.path($0)) }
            }, standard: .builtIn)
    }

    /// The cache folder: the option, else the environment, else the config file, else the XDG default.
    var cacheDirectoryURL: URL {
        cacheDirectorySetting.value
    }

    var cacheDirectorySetting: Resolved<URL> {
        let settings = Settings.shared
        return settings.resolve(
            "cache-dir", commandLine: cacheDirectory.map { URL(fileURLWithPath: $0).standardizedFileURL },
            fromEnvironment: { URL(fileURLWithPath: $0).standardizedFileURL },
            fromFile: { Settings.text($0).map { URL(fileURLWithPath: settings.path($0)).standardizedFileURL } },
            standard: Self.standardCacheDirectory)
    }

    /// `$XDG_CACHE_HOME/imgview`, else `~/.cache/imgview`.
    static var standardCacheDirectory: URL {
        let environment = Settings.variables(["XDG_CACHE_HOME", "HOME"])
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("imgview")
        }
        // $HOME first, as the XDG spec says: Foundation's home directory is the password file's.
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent(".cache/imgview")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/imgview")
    }

    /// Whether to stay off the network: the flag, else IMGVIEW_OFFLINE (1/true/yes, or 0/false/no),
    /// else the config file.
    var isOffline: Bool {
        offlineSetting.value
    }

    var offlineSetting: Resolved<Bool> {
        Settings.shared.resolve(
            "offline", commandLine: offline ? true : nil,
            fromEnvironment: { value in
                let lowered = value.lowercased()
                return ["1", "true", "yes"].contains(lowered) ? true : ["0", "false", "no"].contains(lowered) ? false : nil
            }, fromFile: Settings.boolean, standard: false)
    }

    /// The whole catalog, every page of a paged remote catalog included, fetched with `loader`.
    func loadCatalog(using loader: any DataLoading) async throws -> Catalog {
        if isOffline, case .remote(let url) = catalogSource {
            throw OfflineCatalogError(url: url)
        }
        return try await CatalogLoader(loader: loader).loadAll(from: catalogSource)
    }
}

/// A remote catalog was asked for while offline.
struct OfflineCatalogError: UserFacingError {
    let url: URL
    var message: String { "catalog \(TerminalText.sanitized(url.absoluteString)): remote catalogs cannot be read with --offline" }
    var exitStatus: ExitStatus { .offlineMiss }
}
