import ImgviewFetching
import ImgviewProcess

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ProcessSignals {
    /// Runs a command's `work` so that a request to end (Ctrl-C, Ctrl-\, SIGTERM, SIGHUP, …)
    /// cancels it and cleans up after it, as `get` does: the cache's temporary files of this
    /// process go, and `Terminated` ends the process with one line and 128+N. What `show` and
    /// `info` call around their work.
    static func cancellingOnTermination<Result: Sendable>(
        cacheDirectory: @autoclosure () -> URL, _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        do {
            return try await cancellingOnTermination(work)
        } catch let terminated as Terminated {
            // A transfer winding down still holds its file open; its name goes now, its bytes when it closes.
            (try? DiskCache(directory: cacheDirectory()))?.removeTemporaryFilesOfThisProcess()
            throw terminated
        }
    }
}
