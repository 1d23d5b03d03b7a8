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
/// threads every other task needs, and on two cores they would make the screen wait. Work the
/// user waits for (`.high`: the image on screen, a grid's visible cells, a contact sheet) may use
/// every thread, one a core (`defaultWidth`), since the main thread idles while it waits; other
/// work runs on one thread fewer, leaving a core for the main thread and the transfers. Its
/// threads start when work first arrives and end when the pool is released.
public final class WorkerPool: WorkScheduling, Sendable {
    /// One thread a core, and at least one.
    public static var defaultWidth: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    private let queue: WorkQueue

    public init(width: Int) {
        queue = WorkQueue(width: max(1, width))
    }

    /// One thread a core (`defaultWidth`), counted when work first arrives: a command that decodes
    /// nothing never asks how many cores it has.
    public init() {
        queue = WorkQueue(width: nil)
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
    /// How many threads run work below `.high` now, and how many may.
    private var runningBackground = 0
    private let givenWidth: Int?
    private lazy var width = givenWidth ?? WorkerPool.defaultWidth
    private lazy var backgroundWidth = max(1, width - 1)

    init(width: Int?) {
        givenWidth = width
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
        while let taken = next() {
            taken.ticket.run()
            if taken.isBackground { finishedBackground() }
        }
    }

    private func finishedBackground() {
        condition.lock()
        runningBackground -= 1
        condition.signal()
        condition.unlock()
    }

    /// The next ticket to run and whether it runs below `.high`, waiting for one; nil once the
    /// pool is closed and the queue empty.
    private func next() -> (ticket: WorkTicket, isBackground: Bool)? {
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

    /// The most urgent queued ticket that may start, dropping withdrawn ones, and whether it runs
    /// below `.high`; called holding the lock.
    private func takeMostUrgent() -> (ticket: WorkTicket, isBackground: Bool)? {
        tickets.removeAll { $0.queuedPriority == nil }
        let backgroundIsFull = runningBackground >= backgroundWidth
        let startable = tickets.indices.filter {
            let priority = tickets[$0].queuedPriority ?? .low
            if priority == .high { return true }
            return !backgroundIsFull && (!isLowPriorityHeld || priority > .low)
        }
        guard
            let index = startable.max(by: {
                lhs, rhs in
                let (left, right) = (tickets[lhs], tickets[rhs])
                let (leftPriority, rightPriority) = (left.queuedPriority ?? .low, right.queuedPriority ?? .low)
                if leftPriority != rightPriority { return leftPriority < rightPriority }
                return left.sequence > right.sequence
            })
        else { return nil }
        let ticket = tickets.remove(at: index)
        let isBackground = (ticket.queuedPriority ?? .low) < .high
        if isBackground { runningBackground += 1 }
        return (ticket, isBackground)
    }
}
