import ArgumentParser
import Foundation
import ImgviewCore

extension Imgview {
    /// `imgview list`: the catalog's images.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the catalog: name, title and URL of each image.",
            discussion: """
                With --json, prints the catalog in the same format that --catalog reads, so the \
                output of one command can be the catalog of the next.
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the catalog as JSON (the catalog file format).")
        var json = false

        func run() async throws {
            let catalog = try await global.loadCatalog()
            if json {
                StandardOutput.write(catalog.jsonData())
                StandardOutput.write("\n")
                return
            }
            let rows = catalog.images.map { image in
                [image.name, TerminalText.sanitized(image.title ?? ""), TerminalText.sanitized(image.url.absoluteString)]
            }
            StandardOutput.write(TextTable(header: ["NAME", "TITLE", "URL"], rows: rows).rendered)
        }
    }
}
