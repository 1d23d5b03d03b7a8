import ArgumentParser

extension Imgview {
    /// `imgview cache`: inspection and upkeep of the disk cache.
    struct Cache: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cache",
            abstract: "Inspect and tidy the disk cache.",
            discussion: """
                The cache folder (--cache-dir) holds v1/entries/<sha256 of URL>.json, one per cached \
                URL, the bodies as v1/blobs/<ab>/<sha256 of body>, downloads in progress in v1/tmp, and \
                v1/counters.json. Every command here is safe while other imgview processes download \
                into the same cache: changes are made under its lock, and readers only ever see whole files.
                """,
            subcommands: [List.self, Stats.self, Clear.self, Prune.self, Verify.self, Path.self])
    }
}
