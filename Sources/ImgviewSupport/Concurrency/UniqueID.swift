import Synchronization

/// An identity unique within the process: the pipeline's waiters, transfers and subscribers.
///
/// A counter, not a `UUID`: on Linux each `UUID()` opens and reads `/dev/urandom`, a handful of
/// system calls per request that nothing here needs, since no identity leaves the process.
public struct UniqueID: Hashable, Sendable {
    private static let next = Atomic<UInt64>(0)
    private let value: UInt64

    public init() {
        value = Self.next.add(1, ordering: .relaxed).newValue
    }
}
