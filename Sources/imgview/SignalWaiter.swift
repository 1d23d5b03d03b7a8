import Dispatch
import Foundation

/// Suspends until the process receives one of a set of signals, instead of dying of it.
enum SignalWaiter {
    /// Waits for the first of `signals` and returns it; their default action is off from then on.
    static func wait(for signals: [Int32]) async -> Int32 {
        await withCheckedContinuation { continuation in
            let queue = DispatchQueue(label: "imgview.signals")
            let resumed = SignalOnce(continuation)
            var sources: [any DispatchSourceSignal] = []
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { resumed.resume(number) }
                source.resume()
                sources.append(source)
            }
            resumed.keep(sources)
        }
    }
}

/// Resumes a continuation once, from whichever signal comes first, and keeps the sources alive until then.
private final class SignalOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Int32, Never>) {
        self.continuation = continuation
    }

    func keep(_ sources: [any DispatchSourceSignal]) {
        lock.withLock { self.sources = sources }
    }

    func resume(_ number: Int32) {
        let continuation = lock.withLock {
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(returning: number)
        lock.withLock {
            sources.forEach { $0.cancel() }
            sources = []
        }
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP into a call of `onSignal` (cancelling work, say), so the work can
/// clean up after itself before the process exits, instead of dying with temporary files about.
final class SignalCatcher: @unchecked Sendable {
    static let interrupting: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    private var number: Int32?

    /// The first signal caught, if any.
    var caught: Int32? { lock.withLock { number } }

    init(_ signals: [Int32] = interrupting, onSignal: @escaping @Sendable () -> Void) {
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
                if first { onSignal() }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops catching; the signals' default actions apply again.
    func stop() {
        let stopped = lock.withLock {
            defer { sources = [] }
            return sources
        }
        for source in stopped {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
    }
}
