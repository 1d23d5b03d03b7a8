/// Tells long synchronous work (a decode, a render) that nobody waits for its result any more.
///
/// The work checks it between rows or scans and stops there; whoever gave up sets it. Swift's
/// task cancellation does not reach code running on the pipeline's worker threads, so this is
/// how it gets there.
public final class CancellationFlag: Sendable {
    private let cancelled = Locked(false)

    public init() {}

    public var isCancelled: Bool { cancelled.withLock { $0 } }

    public func cancel() {
        cancelled.withLock { $0 = true }
    }
}
