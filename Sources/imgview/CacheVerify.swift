import ArgumentParser
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Imgview.Cache {
    /// `imgview cache verify`: rehashes every blob; removes what is damaged or orphaned.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Rehash every blob; remove damaged entries, blobs and files, and tidy orphans.",
            discussion: """
                Finds blobs whose bytes no longer match their SHA-256, entries whose blob is missing, \
                metadata files that cannot be read, and links, FIFOs, devices, folders or hard links \
                where a file belongs (removed themselves, never followed); prints and removes each. \
                Temporary files of processes that are gone and blobs no entry references are removed \
                as upkeep, not damage. Exit code 0 when the cache was sound, 9 when something was \
                found (and removed).
                """)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let report = try withCacheErrors(global.cacheDirectoryURL) { try global.existingCache()?.verify() } ?? VerifyReport()
            if json {
                StandardOutput.write(Self.json(report))
            } else {
                var output =
                    "checked \(report.entries) \(report.entries == 1 ? "entry" : "entries"), \(report.blobs) "
                    + "\(report.blobs == 1 ? "blob" : "blobs") (\(ByteCount.format(report.bytes)))\n"
                if report.abandonedFiles > 0 {
                    let count = report.abandonedFiles
                    output += "tidied \(count) abandoned temporary \(count == 1 ? "file" : "files") (left by processes that are gone)\n"
                }
                if report.orphanedBlobs > 0 {
                    let count = report.orphanedBlobs
                    output +=
                        "tidied \(count) orphaned \(count == 1 ? "blob" : "blobs") (\(ByteCount.format(report.orphanedBytes)) no entry referenced)\n"
                }
                if report.orphanedThumbnails > 0 {
                    let count = report.orphanedThumbnails
                    output += "tidied \(count) orphaned \(count == 1 ? "thumbnail" : "thumbnails") (of bodies no longer cached)\n"
                }
                for problem in report.problems {
                    let url = problem.url.map { " \(TerminalText.sanitized($0.absoluteString))" } ?? ""
                    output += "removed \(problem.kind.rawValue) \(TerminalText.sanitized(problem.path))\(url): \(problem.detail)\n"
                }
                StandardOutput.write(output)
            }
            guard report.problems.isEmpty else { throw CacheDamageFound(count: report.problems.count) }
        }

        /// `{"entries", "blobs", "bytes", "abandoned_files", "orphaned_blobs", "problems": [{"kind", "path", "url", "detail"}]}`.
        static func json(_ report: VerifyReport) -> Data {
            let problems = report.problems.map { problem in
                "{\"kind\": \(JSONText.string(problem.kind.rawValue)), \"path\": \(JSONText.string(TerminalText.sanitized(problem.path))), "
                    + "\"url\": \(JSONText.string(problem.url.map { TerminalText.sanitized($0.absoluteString) })), "
                    + "\"detail\": \(JSONText.string(problem.detail))}"
            }
            let list = problems.isEmpty ? "[]" : "[\n  " + problems.joined(separator: ",\n  ") + "\n]"
            return Data(
                ("{\"entries\": \(report.entries), \"blobs\": \(report.blobs), \"bytes\": \(report.bytes), "
                    + "\"abandoned_files\": \(report.abandonedFiles), \"orphaned_blobs\": \(report.orphanedBlobs), "
                    + "\"thumbnails\": \(report.thumbnails), \"orphaned_thumbnails\": \(report.orphanedThumbnails), "
                    + "\"problems\": \(list)}\n").utf8)
        }
    }
}

/// `cache verify` found (and removed) damage: exit 9, with one line on stderr.
struct CacheDamageFound: UserFacingError {
    let count: Int
    var message: String { "cache verify: found and removed \(count) \(count == 1 ? "problem" : "problems")" }
    var exitStatus: ExitStatus { .cache }
}
