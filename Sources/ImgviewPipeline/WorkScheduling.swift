import ImgviewSupport

/// Runs the pipeline's heavy synchronous work (decoding, rendering) somewhere other than the
/// actors that must stay responsive: a bounded pool of threads in the app, a queue a test
/// drains by hand.
public protocol WorkScheduling: Sendable {
    /// Queues `work` to run once at `priority`; the ticket changes its priority or withdraws it.
    func schedule(priority: WorkPriority, _ work: @escaping @Sendable () -> Void) -> WorkTicket

    /// While held, work queued at low priority does not start (work raised above it does): the
    /// pipeline holds it while what the user waits for is under way.
    func holdLowPriority(_ isHeld: Bool)
}

/// A piece of work handed to a `WorkScheduling`: it can be moved up or down the queue, or
/// withdrawn while it has not started.
public final class WorkTicket: Sendable {
    private enum State {
        case queued(WorkPriority)
        case started
        case withdrawn
    }

    private let state: Locked<State>
    private let work: @Sendable () -> Void
    /// Tells the scheduler that the queue's order may have changed.
    private let reordered: @Sendable () -> Void
    /// The order work of equal priority starts in: first come, first served.
    public let sequence: Int

    public init(
        priority: WorkPriority, sequence: Int, work: @escaping @Sendable () -> Void,
        reordered: @escaping @Sendable () -> Void = {}
    ) {
        state = Locked(.queued(priority))
        self.sequence = sequence
        self.work = work
        self.reordered = reordered
    }

    /// The priority while queued; nil once started or withdrawn.
    public var queuedPriority: WorkPriority? {
        state.withLock { if case .queued(let priority) = $0 { priority } else { nil } }
    }

    /// Moves queued work up or down; work already running is not affected.
    public func setPriority(_ priority: WorkPriority) {
        let changed = state.withLock { state -> Bool in
            guard case .queued(let current) = state, current != priority else { return false }
            state = .queued(priority)
            return true
        }
        if changed { reordered() }
    }

    /// Takes the work out of the queue; true if it had not started (and now never will).
    @discardableResult
    public func withdraw() -> Bool {
        state.withLock { state in
            guard case .queued = state else { return false }
            state = .withdrawn
            return true
        }
    }

    /// Runs the work unless it was withdrawn; for schedulers.
    public func run() {
        let runs = state.withLock { state -> Bool in
            guard case .queued = state else { return false }
            state = .started
            return true
        }
        if runs { work() }
    }
}
