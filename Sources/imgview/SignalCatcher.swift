import ArgumentParser
import Dispatch
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Turns SIGINT, SIGTERM and SIGHUP (or other signals) into a call of `onSignal`, instead of death.
///
/// `get` cancels its downloads with it, so their temporary files go before the process exits;
/// `serve` waits for one with `wait(for:)`. Only the first signal is reported; once caught,
/// the signals stay ignored until the process ends.
final class SignalCatcher: @unchecked Sendable {
    static let interrupting: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let lock = ThreadLock()
    private var sources: [any DispatchSourceSignal] = []
    private var number: Int32?

    /// The first signal caught, if any.
    var caught: Int32? { lock.withLock { number } }

    init(_ signals: [Int32] = interrupting, onSignal: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "imgview.signal-catcher")
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let first = self.lock.withLock {
                    defer { if self.number == nil { self.number = number } }
                    return self.number == nil
                }
                if first { onSignal(number) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops listening; the signals stay ignored.
    func stop() {
        let stopped = lock.withLock {
            defer { sources = [] }
            return sources
        }
        stopped.forEach { $0.cancel() }
    }

    /// Suspends until the first of `signals` arrives and returns it.
    static func wait(for signals: [Int32]) async -> Int32 {
        var catcher: SignalCatcher?
        let number = await withCheckedContinuation { continuation in
            catcher = SignalCatcher(signals) { continuation.resume(returning: $0) }
        }
        catcher?.stop()
        return number
    }
}

extension SignalCatcher {
    /// Runs a command's `work` so that SIGINT, SIGTERM or SIGHUP cancel it and clean up after it,
    /// as `get` does: the cache's temporary files of this process go, "interrupted" is printed and
    /// the process exits 128+N. What `show` and `info` call around their work.
    static func cancellingOnSignal<T: Sendable>(
        cacheDirectory: URL, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let task = Task { try await work() }
        let catcher = SignalCatcher { _ in task.cancel() }
        let result = await task.result
        catcher.stop()
        guard let number = catcher.caught else { return try result.get() }
        // A transfer winding down still holds its file open; its name goes now, its bytes when it closes.
        (try? DiskCache(directory: cacheDirectory))?.removeTemporaryFilesOfThisProcess()
        StandardError.print("imgview: interrupted")
        throw ExitCode(128 + number)
    }
}
