import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One consumer's way through the stages: the work it waits on now, at which priority, and
/// whether it gave up. Every change takes effect before the call that makes it returns.
final class WorkWaiter: Sendable {
    private struct State {
        var priority: WorkPriority
        var isCancelled = false
        /// The work the waiter waits on (or holds a place in) now.
        var current: (any StageWaiting)?
    }

    let id = UniqueID()
    private let state: Locked<State>

    init(priority: WorkPriority) {
        state = Locked(State(priority: priority))
    }

    var priority: WorkPriority {
        state.withLock { $0.priority }
    }

    var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }

    /// Moves the waiter, and the work it waits on, to `priority`; false when it was there already.
    @discardableResult
    func setPriority(_ priority: WorkPriority) -> Bool {
        let current = state.withLock { state -> (any StageWaiting)?? in
            guard state.priority != priority else { return nil }
            state.priority = priority
            return .some(state.current)
        }
        guard let current else { return false }
        current?.setPriority(priority, for: id)
        return true
    }

    /// Leaves the work waited on, for good: whatever the waiter joins later answers `CancellationError`.
    func cancel() {
        let current = state.withLock { state in
            state.isCancelled = true
            defer { state.current = nil }
            return state.current
        }
        current?.leave(id)
    }

    /// Joins the work for `key` in `table` at the waiter's priority; nil once cancelled.
    func join<Key: Hashable & Sendable, Value: Sendable>(
        _ table: StageTable<Key, Value>, _ key: Key, progress: TransferProgress? = nil, body: BodyTap? = nil,
        partials: () -> PartialPreviews? = { nil }
    ) -> (work: SharedWork<Value>, isNew: Bool)? {
        state.withLock { state in
            guard !state.isCancelled else { return nil }
            let joined = table.join(key, id: id, priority: state.priority, progress: progress, body: body, partials: partials)
            state.current = joined.work
            return joined
        }
    }

    /// Waits for `work`, which the waiter joined; leaves it if the calling task is cancelled meanwhile.
    func wait<Value: Sendable>(for work: SharedWork<Value>) async throws -> Value {
        defer {
            state.withLock { state in
                if state.current === work { state.current = nil }
            }
        }
        return try await work.value(for: id)
    }

    /// Runs `body` under `state`'s lock, for decisions that must not interleave with a change of
    /// priority or a cancellation.
    func withState<T>(_ body: (_ priority: WorkPriority, _ isCancelled: Bool) -> T) -> T {
        state.withLock { body($0.priority, $0.isCancelled) }
    }
}
