import ArgumentParser
import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview.Cache {
    /// `imgview cache stats`: how full the cache is and how it has answered.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Show the cache's size against its limit, its counters, and its oldest and newest entry.",
            discussion: """
                Hits are requests served from disk without the network, revalidations stale entries \
                the server confirmed with a 304, misses requests the cache could not answer; evictions \
                are entries removed to respect the size limit or by 'cache prune'; thumbnails are those \
                the grid and 'show --grid' made of cached images, kept beside their bodies. The counters sum \
                every imgview process that used the cache. On a terminal the figures are for reading; \
                otherwise they are 'key<TAB>value' lines with exact numbers; --json prints one object.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the statistics as JSON.")
        var json = false

        func run() async throws {
            let style = OutputStyle.choose(json: json)
            let directory = global.cacheDirectoryURL
            let statistics = try withCacheErrors(directory) { () throws -> CacheStatistics in
                let cache = try global.existingCache(readOnly: true)
                return CacheStatistics(
                    entries: cache?.entries() ?? [], counters: cache?.counters() ?? .zero, limit: try global.cacheSizeLimit(),
                    partials: cache?.partials() ?? [], thumbnails: cache?.thumbnailTotals() ?? (0, 0))
            }
            switch style {
            case .json: StandardOutput.write(statistics.json(directory: directory.path))
            case .plain: StandardOutput.write(statistics.plain(directory: directory.path))
            case .table: StandardOutput.write(statistics.table(directory: directory.path, now: Date()))
            }
        }
    }
}
