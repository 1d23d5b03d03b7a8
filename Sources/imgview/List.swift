import ArgumentParser
import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview {
    /// `imgview list`: the catalog's images.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the catalog: name, title, URL and whether each image is cached.",
            discussion: """
                CACHED is fresh, stale (cached, but to be revalidated before use) or no. On a terminal, \
                a table fitted to its width; in a pipe, one tab-separated line per image with no \
                header (\(CatalogListing.plainColumns)). With --json, prints the catalog in the same \
                format that --catalog reads, each image with "cached" and "fresh" added, so the output \
                of one command can be the catalog of the next.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the catalog as JSON (the catalog file format, with cache states).")
        var json = false

        func run() async throws {
            let style = OutputStyle.choose(json: json)
            let catalog = try await global.loadCatalog(using: try HTTPClient.makeLoader())
            // A cache that cannot be opened holds nothing usable: every image shows as not cached.
            let cache = try? global.existingCache()
            let addresses = catalog.images.map(\.urlString)
            let states = cache?.states(of: addresses, at: Date()) ?? addresses.map { _ in .notCached }
            let listing = CatalogListing(catalog: catalog, states: states)
            switch style {
            case .json: StandardOutput.write(listing.json())
            case .plain:
                // A piece at a time: 100,000 lines need not sit in memory twice over.
                for start in stride(from: 0, to: catalog.images.count, by: 4096) {
                    StandardOutput.write(listing.plain(start..<min(start + 4096, catalog.images.count)))
                }
            case .table(let width): StandardOutput.write(listing.table(width: width))
            }
        }
    }
}
