import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A fixed number of threads running scheduled work, highest priority first, in arrival order
/// within a priority.
///
/// Decoding and rendering are long synchronous calls; on Swift's cooperative pool they would hold
/// threads every other task needs, and on two cores they would make the screen wait. The pool
/// leaves a core for the main thread and the transfers (`defaultWidth`). Its threads start when
/// work first arrives and end when the pool is released.
public final class WorkerPool: WorkScheduling, Sendable {
    /// One thread fewer than the machine has cores, and at least one.
    public static var defaultWidth: Int { max(1, ProcessInfo.processInfo.activeProcessorCount - 1) }

    private let queue: WorkQueue

    public init(width: Int = WorkerPool.defaultWidth) {
        queue = WorkQueue(width: max(1, width))
    }

    deinit {
        queue.close()
    }

    public func schedule(priority: WorkPriority, _ work: @escaping @Sendable () -> Void) -> WorkTicket {
        queue.add(priority: priority, work)
    }

    public func holdLowPriority(_ isHeld: Bool) {
        queue.holdLowPriority(isHeld)
    }
}

/// The pool's queue and its threads' meeting point: the threads hold this, not the pool, so the
/// pool can go away and tell them to end.
private final class WorkQueue: @unchecked Sendable {
    private let condition = ThreadCondition()
    // Guarded by `condition`.
    private var tickets: [WorkTicket] = []
    private var nextSequence = 0
    private var threadCount = 0
    private var idleThreads = 0
    private var isClosed = false
    private var isLowPriorityHeld = false
    private let width: Int

    init(width: Int) {
        self.width = width
    }

    func add(priority: WorkPriority, _ work: @escaping @Sendable () -> Void) -> WorkTicket {
        condition.lock()
        defer { condition.unlock() }
        let ticket = WorkTicket(priority: priority, sequence: nextSequence, work: work) { [weak self] in self?.wake() }
        nextSequence += 1
        tickets.append(ticket)
        if idleThreads == 0, threadCount < width {
            threadCount += 1
            DetachedThread.start(name: "imgview-worker") { [self] in run() }
        } else {
            condition.signal()
        }
        return ticket
    }

    func holdLowPriority(_ isHeld: Bool) {
        condition.lock()
        isLowPriorityHeld = isHeld
        if !isHeld { condition.broadcast() }
        condition.unlock()
    }

    func close() {
        condition.lock()
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }

    private func wake() {
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while let ticket = next() {
            ticket.run()
        }
    }

    /// The next ticket to run, waiting for one; nil once the pool is closed and the queue empty.
    private func next() -> WorkTicket? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let ticket = takeMostUrgent() { return ticket }
            if isClosed { return nil }
            idleThreads += 1
            condition.wait()
            idleThreads -= 1
        }
    }

    /// The most urgent queued ticket that may start, dropping withdrawn ones; called holding the lock.
    private func takeMostUrgent() -> WorkTicket? {
        tickets.removeAll { $0.queuedPriority == nil }
        guard
            let index = tickets.indices.filter({ !isLowPriorityHeld || (tickets[$0].queuedPriority ?? .low) > .low }).max(by: {
                lhs, rhs in
                let (left, right) = (tickets[lhs], tickets[rhs])
                let (leftPriority, rightPriority) = (left.queuedPriority ?? .low, right.queuedPriority ?? .low)
                if leftPriority != rightPriority { return leftPriority < rightPriority }
                return left.sequence > right.sequence
            })
        else { return nil }
        return tickets.remove(at: index)
    }
}
