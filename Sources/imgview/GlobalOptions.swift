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

    @Flag(name: .long, help: "Use only what is cached; never touch the network (env IMGVIEW_OFFLINE=1).")
    var offline = false

    func validate() throws {
        _ = try cacheSizeLimit()
    }

    /// The cache's size limit: the option, else the environment, else 1 GiB.
    func cacheSizeLimit() throws -> Int64 {
        let environment = ProcessInfo.processInfo.environment
        guard let text = cacheSize ?? environment["IMGVIEW_CACHE_SIZE"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return DiskCache.defaultSizeLimit
        }
        guard let bytes = ByteCount.parse(text), bytes > 0 else {
            throw ValidationError("--cache-size: \"\(TerminalText.sanitized(text))\" is not a size (use e.g. 500M, 2G)")
        }
        return bytes
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
            if ["--catalog", "--cache-dir", "--cache-size"].contains(argument), index + 1 < arguments.count {
                globals += arguments[index...index + 1]
                index += 2
            } else if argument == "--offline" || argument.hasPrefix("--catalog=") || argument.hasPrefix("--cache-dir=")
                || argument.hasPrefix("--cache-size=")
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

    /// Where the catalog comes from: the option, else the environment, else the built-in catalog.
    var catalogSource: CatalogSource {
        let environment = ProcessInfo.processInfo.environment
        guard let value = catalog ?? environment["IMGVIEW_CATALOG"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return .builtIn
        }
        return CatalogSource(argument: value)
    }

    /// The cache folder: the option, else the environment, else the XDG default.
    var cacheDirectoryURL: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = cacheDirectory ?? environment["IMGVIEW_CACHE_DIR"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("imgview")
        }
        // $HOME first, as the XDG spec says: Foundation's home directory is the password file's.
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent(".cache/imgview")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/imgview")
    }

    /// Whether to stay off the network: the flag, or IMGVIEW_OFFLINE set to 1/true/yes.
    var isOffline: Bool {
        if offline { return true }
        let value = ProcessInfo.processInfo.environment["IMGVIEW_OFFLINE"]?.lowercased() ?? ""
        return ["1", "true", "yes"].contains(value)
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
