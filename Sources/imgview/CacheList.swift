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
                '-'. Downloads cut short and kept to be continued follow the entries as \
                'partial 37%' (or 'partial 12 MB' when the server did not say the length), with the \
                bytes so far, when they started and when bytes last came. With --json, \
                {"entries": [...], "partials": [...]} as documented in the README.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the entries as JSON.")
        var json = false

        func run() async throws {
            let style = OutputStyle.choose(json: json)
            let cache = try withCacheErrors(global.cacheDirectoryURL) { try global.existingCache(readOnly: true) }
            let entries = cache?.entries() ?? []
            let partials = cache?.partials() ?? []
            let names = entries.isEmpty && partials.isEmpty ? [:] : await global.catalogNamesByURL()
            let listing = CacheListing(
                entries: entries, partials: partials, names: names, now: Date(), thumbnails: json ? cache?.thumbnailSizes() ?? [:] : [:])
            switch style {
            case .json:
                StandardOutput.write(listing.json())
            case .plain:
                StandardOutput.write(listing.plain)
            case .table(let width):
                if entries.isEmpty && partials.isEmpty {
                    StandardOutput.write("The cache is empty (\(global.cacheDirectoryURL.path)).\n")
                } else {
                    StandardOutput.write(listing.table(width: width))
                }
            }
        }
    }
}
