import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One stage's work for one key — a fetch, a header, a decode, a render — shared by every task
/// that needs it.
///
/// Joining is synchronous and separate from waiting: a task holds its place from the moment it
/// is made, so a consumer that starts a new task and then cancels an old one never gives up work
/// the new one shares, however the two tasks' runs interleave. The work's priority is the highest
/// of its waiters'. When the last waiter leaves before the end, the work is given up: its
/// cancellation flag is set (a decode stops between rows), its place in the scheduler's queue is
/// withdrawn, and its task is cancelled (a transfer stops).
final class SharedWork<Value: Sendable>: Sendable {
    private struct Waiter {
        /// nil until the waiter waits (`value(for:)`).
        var continuation: CheckedContinuation<Value, any Error>?
        var priority: WorkPriority
    }

    private struct State {
        var waiters: [UniqueID: Waiter] = [:]
        var result: Result<Value, any Error>?
        var isGivenUp = false
        var task: Task<Void, Never>?
        /// The work's place in the scheduler's queue, while it has one.
        var ticket: WorkTicket?
    }

    private let state = Locked(State())
    let cancellation = CancellationFlag()
    /// A transfer's progress, for the waiters that asked (fetches only).
    let progress = ProgressFanout()
    /// A transfer's body as it arrives, for the waiters that asked (fetches only).
    let bodies = BodyFanout()
    /// Pictures of the body while it arrives, for the waiters that asked (fetches only).
    let partials: PartialPreviews?
    /// Takes the work out of its stage's table, so the next request starts afresh.
    private let detach: @Sendable (SharedWork<Value>) -> Void

    init(partials: PartialPreviews? = nil, detach: @escaping @Sendable (SharedWork<Value>) -> Void) {
        self.partials = partials
        self.detach = detach
    }

    /// The most urgent of the waiters' priorities.
    var priority: WorkPriority {
        state.withLock { Self.priority(of: $0) }
    }

    private static func priority(of state: State) -> WorkPriority {
        state.waiters.values.map(\.priority).max() ?? .low
    }

    /// Holds a place for `id`; false when the work was given up, and a new one must be started.
    func join(_ id: UniqueID, priority: WorkPriority, progress handler: TransferProgress? = nil, body: BodyTap? = nil) -> Bool {
        let joined = state.withLock { state -> (ticket: WorkTicket?, priority: WorkPriority)? in
            guard !state.isGivenUp else { return nil }
            if state.result == nil { state.waiters[id] = Waiter(continuation: nil, priority: priority) }
            return (state.ticket, Self.priority(of: state))
        }
        guard let joined else { return false }
        progress.add(id, handler)
        bodies.add(id, body)
        joined.ticket?.setPriority(joined.priority)
        return true
    }

    /// Waits for the outcome as `id`, which joined before; cancelling the calling task leaves.
    func value(for id: UniqueID) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let answer = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    guard state.waiters[id] != nil else { return .failure(CancellationError()) }
                    state.waiters[id]?.continuation = continuation
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            leave(id)
        }
    }

    func setPriority(_ priority: WorkPriority, for id: UniqueID) {
        let ticket = state.withLock { state -> (WorkTicket, WorkPriority)? in
            guard state.waiters[id] != nil else { return nil }
            state.waiters[id]?.priority = priority
            return state.ticket.map { ($0, Self.priority(of: state)) }
        }
        if let (ticket, priority) = ticket { ticket.setPriority(priority) }
    }

    /// `id` gives up waiting: it is answered with `CancellationError` at once, and the work is
    /// given up if nobody else waits.
    func leave(_ id: UniqueID) {
        let (waiter, isAbandoned, ticket) = state.withLock { state -> (Waiter?, Bool, (WorkTicket, WorkPriority)?) in
            let waiter = state.waiters.removeValue(forKey: id)
            let isAbandoned = waiter != nil && state.waiters.isEmpty && state.result == nil
            if isAbandoned { state.isGivenUp = true }
            return (waiter, isAbandoned, state.ticket.map { ($0, Self.priority(of: state)) })
        }
        guard let waiter else { return }
        progress.remove(id)
        bodies.remove(id)
        partials?.unsubscribe(id)
        waiter.continuation?.resume(throwing: CancellationError())
        if isAbandoned {
            giveUp()
        } else if let (ticket, priority) = ticket {
            ticket.setPriority(priority)
        }
    }

    /// Answers every waiter with `result`; the first outcome stands.
    func finish(with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [UniqueID: Waiter]? in
            guard state.result == nil else { return nil }
            state.result = result
            state.ticket = nil
            defer { state.waiters = [:] }
            return state.waiters
        }
        detach(self)
        partials?.close()
        guard let waiters else { return }
        for (id, waiter) in waiters {
            progress.remove(id)
            bodies.remove(id)
            waiter.continuation?.resume(with: result)
        }
    }

    /// Answers every waiter with `CancellationError` and gives the work up, whoever waits.
    func abandon() {
        let waiters = state.withLock { state -> [UniqueID: Waiter] in
            state.isGivenUp = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for (id, waiter) in waiters {
            progress.remove(id)
            bodies.remove(id)
            waiter.continuation?.resume(throwing: CancellationError())
        }
        giveUp()
    }

    private func giveUp() {
        detach(self)
        partials?.close()
        cancellation.cancel()
        let (ticket, task) = state.withLock { state in (state.ticket, state.task) }
        // Work still queued never runs: its outcome is the cancellation.
        if ticket?.withdraw() == true { finish(with: .failure(CancellationError())) }
        task?.cancel()
    }

    // MARK: Running

    /// Runs `body` as the work's task (a fetch): cancelled when the work is given up.
    func start(_ body: @escaping @Sendable () async -> Result<Value, any Error>) {
        let task = Task(executorPreference: PreferredExecutor.current) { [self] in finish(with: await body()) }
        let isGivenUp = state.withLock { state -> Bool in
            state.task = task
            return state.isGivenUp
        }
        if isGivenUp { task.cancel() }
    }

    /// Queues `body` on `scheduler` at the work's priority (a header, a decode, a render); it runs
    /// with the work's cancellation flag, and `stored` keeps what it made before the waiters hear.
    func schedule(
        on scheduler: any WorkScheduling, _ body: @escaping @Sendable (CancellationFlag) throws -> Value,
        stored: @escaping @Sendable (Value) -> Void = { _ in }
    ) {
        let cancellation = cancellation
        let ticket = scheduler.schedule(priority: priority) { [self] in
            let result = Result { try body(cancellation) }
            if case .success(let value) = result { stored(value) }
            finish(with: result)
        }
        let isGivenUp = state.withLock { state -> Bool in
            if state.result == nil { state.ticket = ticket }
            return state.isGivenUp
        }
        if isGivenUp, ticket.withdraw() { finish(with: .failure(CancellationError())) }
    }

    /// Returns once the work's task has ended (a cancelled transfer has cleaned up after itself).
    func settle() async {
        await state.withLock { $0.task }?.value
    }
}

/// A work a task waits on, whatever its value: what a task needs to move or leave it.
protocol StageWaiting: AnyObject, Sendable {
    func setPriority(_ priority: WorkPriority, for id: UniqueID)
    func leave(_ id: UniqueID)
}

extension SharedWork: StageWaiting {}
