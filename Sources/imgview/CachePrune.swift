import ArgumentParser
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview.Cache {
    /// `imgview cache prune`: removes old entries, or enough of the least recently used to fit a size.
    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Remove entries unused for a while, or the least recently used down to a size.",
            discussion: """
                --older-than goes by last use, not download: an image used every day stays. With both \
                options, old entries go first, then the least recently used until the rest fit. Every \
                prune also removes blobs no entry references and temporary files of processes that are \
                gone; with no option that is all it does. Prints each entry removed and what was freed; \
                removed entries count as evictions in 'cache stats'.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(
            name: .customLong("max-size"),
            help: ArgumentHelp("Keep at most this many bytes, e.g. 500K, 200M, 1.5G (K = 1024).", valueName: "size"))
        var maxSize: String?

        @Option(
            name: .customLong("older-than"),
            help: ArgumentHelp("Remove entries not used for this long, e.g. 30m, 12h, 7d, 2w, 1d12h.", valueName: "duration"))
        var olderThan: String?

        func run() async throws {
            // Parsed here rather than in validate(), so a bad value is imgview's one-line usage error.
            var selection = PruneSelection()
            if let maxSize {
                guard let bytes = ByteCount.parse(maxSize) else { throw CacheArgumentError.size(maxSize) }
                selection.maxSize = bytes
            }
            if let olderThan {
                guard let seconds = DurationText.parse(olderThan) else { throw CacheArgumentError.duration(olderThan) }
                selection.olderThan = seconds
            }
            let report = try withCacheErrors(global.cacheDirectoryURL) { try global.existingCache()?.prune(selection) } ?? RemovalReport()
            let now = Date()
            var output = ""
            for entry in report.entries {
                let unused = DurationText.format(now.timeIntervalSince(entry.lastAccessedAt))
                output +=
                    "removed \(TerminalText.sanitized(entry.url.absoluteString)) (\(ByteCount.format(entry.byteCount)), last used \(unused) ago)\n"
            }
            StandardOutput.write(output + report.summary + "\n")
        }
    }
}

/// A size or duration option that does not parse.
enum CacheArgumentError: UserFacingError {
    case size(String)
    case duration(String)

    var message: String {
        switch self {
        case .size(let text): "--max-size: \"\(TerminalText.sanitized(text))\" is not a size (use e.g. 500K, 200M, 1.5G)"
        case .duration(let text): "--older-than: \"\(TerminalText.sanitized(text))\" is not a duration (use e.g. 30m, 12h, 7d)"
        }
    }

    var exitStatus: ExitStatus { .usage }
}
