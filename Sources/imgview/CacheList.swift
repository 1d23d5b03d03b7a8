import ArgumentParser
import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview.Cache {
    /// `imgview cache ls`: every entry, most recently used first.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls",
            abstract: "List the cache's entries, most recently used first.",
            discussion: """
                On a terminal: a table of catalog name (when the URL is in the catalog), URL, size, \
                format and pixel size, when fetched and last used, fresh or stale and for how long, \
                and ETag, fitted to the width. Otherwise one tab-separated line per entry, without a \
                header: \(CacheListing.plainColumns); times are ISO 8601 UTC and a missing value is \
                '-'. With --json, {"entries": [...]} as documented in the README.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the entries as JSON.")
        var json = false

        func run() async throws {
            let style = OutputStyle.choose(json: json)
            let entries = try withCacheErrors(global.cacheDirectoryURL) { try global.existingCache(readOnly: true)?.entries() ?? [] }
            let names = entries.isEmpty ? [:] : await global.catalogNamesByURL()
            let listing = CacheListing(entries: entries, names: names, now: Date())
            switch style {
            case .json:
                StandardOutput.write(listing.json())
            case .plain:
                StandardOutput.write(listing.plain)
            case .table(let width):
                if entries.isEmpty {
                    StandardOutput.write("The cache is empty (\(global.cacheDirectoryURL.path)).\n")
                } else {
                    StandardOutput.write(listing.table(width: width))
                }
            }
        }
    }
}
