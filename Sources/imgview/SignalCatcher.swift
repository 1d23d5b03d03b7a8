import Dispatch
import Foundation

/// Turns SIGINT, SIGTERM and SIGHUP (or other signals) into a call of `onSignal`, instead of death.
///
/// `get` cancels its downloads with it, so their temporary files go before the process exits;
/// `serve` waits for one with `wait(for:)`. Only the first signal is reported; once caught,
/// the signals stay ignored until the process ends.
final class SignalCatcher: @unchecked Sendable {
    static let interrupting: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let lock = NSLock()
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
