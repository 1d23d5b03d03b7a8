import ArgumentParser
import Foundation
import ImgviewCore

extension Imgview {
    /// `imgview list`: the catalog's images.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the catalog: name, title, URL and whether each image is cached.",
            discussion: """
                CACHED is fresh, stale (cached, but to be revalidated before use) or no. With --json, \
                prints the catalog in the same format that --catalog reads, each image with "cached" \
                and "fresh" added, so the output of one command can be the catalog of the next.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the catalog as JSON (the catalog file format, with cache states).")
        var json = false

        func run() async throws {
            let catalog = try await global.loadCatalog(using: try HTTPClient.makeLoader())
            // A cache that cannot be opened holds nothing usable: every image shows as not cached.
            let cache = try? global.existingCache()
            let now = Date()
            var states: [URL: CacheState] = [:]
            for image in catalog.images { states[image.url] = cache?.state(of: image.url, at: now) ?? .notCached }
            if json {
                StandardOutput.write(catalog.jsonData(cacheStates: states))
                StandardOutput.write("\n")
                return
            }
            let rows = catalog.images.map { image in
                [
                    image.name, TerminalText.sanitized(image.title ?? ""), TerminalText.sanitized(image.url.absoluteString),
                    (states[image.url] ?? .notCached).rawValue,
                ]
            }
            StandardOutput.write(TextTable(header: ["NAME", "TITLE", "URL", "CACHED"], rows: rows).rendered)
        }
    }
}
