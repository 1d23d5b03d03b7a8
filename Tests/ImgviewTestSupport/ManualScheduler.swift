import Testing

@testable import ImgviewPipeline
@testable import ImgviewSupport

/// A scheduler whose work runs only when a test says so, on the test's own task: so a test can
/// see what is queued, in which order and at which priority, and assert that nothing else
/// happens without sleeping.
public final class ManualScheduler: WorkScheduling, Sendable {
    private struct State {
        var queue: [WorkTicket] = []
        var next = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var isLowPriorityHeld = false
    }

    private let state = Locked(State())

    public init() {}

    public func schedule(priority: WorkPriority, _ work: @escaping @Sendable () -> Void) -> WorkTicket {
        let (ticket, ready) = state.withLock { state -> (WorkTicket, [CheckedContinuation<Void, Never>]) in
            let ticket = WorkTicket(priority: priority, sequence: state.next, work: work)
            state.next += 1
            state.queue.append(ticket)
            return (ticket, Self.takeReady(&state))
        }
        for continuation in ready { continuation.resume() }
        return ticket
    }

    public func holdLowPriority(_ isHeld: Bool) {
        state.withLock { $0.isLowPriorityHeld = isHeld }
    }

    /// Whether low-priority work is held back now (the pipeline has foreground work under way).
    public var isLowPriorityHeld: Bool {
        state.withLock { $0.isLowPriorityHeld }
    }

    /// The queued work's priorities, most urgent first (the order `runNext` takes them in).
    public var queued: [WorkPriority] {
        state.withLock { state in Self.ordered(state.queue).compactMap(\.queuedPriority) }
    }

    /// Waits until at least `count` pieces of work are queued.
    public func waitForWork(count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if Self.live(state.queue).count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Runs the most urgent queued work if it is at least `priority` and not held back; false when
    /// there was none.
    @discardableResult
    public func runNext(atLeast priority: WorkPriority = .low) -> Bool {
        let ticket = state.withLock { state -> WorkTicket? in
            let runnable = Self.ordered(state.queue).filter { !state.isLowPriorityHeld || ($0.queuedPriority ?? .low) > .low }
            guard let first = runnable.first, (first.queuedPriority ?? .low) >= priority else { return nil }
            state.queue.removeAll { $0 === first }
            return first
        }
        ticket?.run()
        return ticket != nil
    }

    /// Runs work of at least `priority` as it is queued until `condition` holds, recording an issue
    /// after `timeout`: for following a pipeline through its stages.
    public func run(
        isolation: isolated (any Actor)? = #isolation, atLeast priority: WorkPriority = .low, timeout: Duration = .seconds(10),
        until condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
                return
            }
            // Between stages the pipeline's tasks have work of their own to do before they queue more.
            if !runNext(atLeast: priority) { try await Task.sleep(for: .milliseconds(1)) }
        }
    }

    /// Runs queued work until none is left, including work queued meanwhile; returns how many ran.
    @discardableResult
    public func runAll() -> Int {
        var count = 0
        while runNext() { count += 1 }
        return count
    }

    private static func live(_ queue: [WorkTicket]) -> [WorkTicket] {
        queue.filter { $0.queuedPriority != nil }
    }

    private static func ordered(_ queue: [WorkTicket]) -> [WorkTicket] {
        live(queue).sorted { lhs, rhs in
            let (left, right) = (lhs.queuedPriority ?? .low, rhs.queuedPriority ?? .low)
            return left != right ? left > right : lhs.sequence < rhs.sequence
        }
    }

    private static func takeReady(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = live(state.queue).count
        let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
        state.waiters.removeAll { $0.count <= count }
        return ready
    }
}
