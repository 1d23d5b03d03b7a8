import ArgumentParser
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview.Cache {
    /// `imgview cache clear`: removes everything, or the named images.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Remove every entry from the cache, or only the named images.",
            discussion: """
                Prints each entry removed and what was freed. Every name is checked before anything is \
                removed: an unknown name is an error (exit 4) and removes nothing; a known image that is \
                not cached is reported and is not an error. The counters of 'cache stats' are kept.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Catalog names or http(s) URLs; none means everything.")
        var images: [String] = []

        func run() async throws {
            // Resolve every argument first, so a typo in the third name leaves the first two alone.
            let catalog = CatalogOnce(global: global, loader: try HTTPClient.makeLoader())
            var references: [ImageReference] = []
            for argument in images {
                references.append(try await ImageReference.resolve(argument) { try await catalog.value() })
            }
            let directory = global.cacheDirectoryURL
            try withCacheErrors(directory) {
                guard let cache = try global.existingCache() else {
                    for reference in references { StandardOutput.write("not cached: \(Self.label(reference))\n") }
                    StandardOutput.write(RemovalReport().summary + "\n")
                    return
                }
                if references.isEmpty {
                    StandardOutput.write(try cache.removeAll().summary + "\n")
                    return
                }
                let (report, notCached) = try cache.remove(references.map(\.url))
                var output = ""
                for reference in references {
                    if notCached.contains(reference.url) {
                        output += "not cached: \(Self.label(reference))\n"
                    } else if let entry = report.entries.first(where: { $0.url == reference.url }) {
                        output += "removed \(Self.label(reference)) (\(ByteCount.format(entry.byteCount)))\n"
                    }
                }
                StandardOutput.write(output + report.summary + "\n")
            }
        }

        /// `image0 (https://…)` for a catalog name, the URL alone otherwise.
        static func label(_ reference: ImageReference) -> String {
            let url = TerminalText.sanitized(reference.url.absoluteString)
            return reference.image.map { "\($0.name) (\(url))" } ?? url
        }
    }
}
