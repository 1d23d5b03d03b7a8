import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One stage's work for one key — a fetch, a header, a decode, a render — shared by every
/// preview task that needs it.
///
/// Lives on the pipeline's actor. Its priority is the highest of its waiters'; when the last
/// waiter leaves, the work is given up: its cancellation flag is set (a decode stops between
/// rows), work still queued on the scheduler is withdrawn, and its task is cancelled (a
/// transfer stops unless another consumer of the image service still waits for it).
final class SharedWork<Value: Sendable> {
    private struct Waiter {
        /// nil while the waiter has only reserved its place (a task whose start was ordered, not yet run).
        var continuation: CheckedContinuation<Value, any Error>?
        var priority: WorkPriority
    }

    private var waiters: [UUID: Waiter] = [:]
    /// The outcome, once there is one: a waiter that reserved its place reads it here.
    private(set) var result: Result<Value, any Error>?
    let cancellation = CancellationFlag()
    /// Fans a transfer's progress out to the waiters that asked for it (fetches only).
    let progress = ProgressFanout()
    /// Pictures of the body while it arrives, for the waiters that asked (fetches only).
    var partials: PartialPreviews?
    var task: Task<Void, Never>?
    /// The work's place in the scheduler's queue, while it has one.
    var ticket: WorkTicket?
    /// Answers the scheduled work's continuation when its ticket is withdrawn before it ran.
    var withdrawn: (() -> Void)?
    /// Queues low-priority work held back while the pipeline has foreground work under way.
    private var parked: (() -> Void)?
    /// Takes the work out of its stage's table, so the next request starts afresh.
    var detach: () -> Void = {}

    /// The most urgent of the waiters' priorities.
    var priority: WorkPriority {
        waiters.values.map(\.priority).max() ?? .low
    }

    package var isAbandoned: Bool { waiters.isEmpty }

    /// Holds a place for `id`, so the work goes on for it before it waits.
    func reserve(_ id: UUID, priority: WorkPriority) {
        waiters[id] = Waiter(continuation: nil, priority: priority)
        priorityChanged()
    }

    /// Holds `enqueue` back until `releaseParked` (or a waiter that needs the work sooner).
    func park(_ enqueue: @escaping () -> Void) {
        parked = enqueue
    }

    /// Queues the work if it was held back.
    func releaseParked() {
        guard let enqueue = parked else { return }
        parked = nil
        enqueue()
    }

    private func priorityChanged() {
        if priority > .low { releaseParked() }
        ticket?.setPriority(priority)
    }

    func add(
        _ id: UUID, continuation: CheckedContinuation<Value, any Error>, priority: WorkPriority,
        progress handler: ImageService.Progress?
    ) {
        if let result {
            continuation.resume(with: result)
            return
        }
        waiters[id] = Waiter(continuation: continuation, priority: priority)
        progress.add(id, handler)
        priorityChanged()
    }

    func setPriority(_ priority: WorkPriority, for id: UUID) {
        guard waiters[id] != nil else { return }
        waiters[id]?.priority = priority
        priorityChanged()
    }

    /// `id` gives up waiting: it is answered with `CancellationError` at once, and the work is
    /// given up if nobody else waits.
    func leave(_ id: UUID) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        progress.remove(id)
        partials?.unsubscribe(id)
        waiter.continuation?.resume(throwing: CancellationError())
        if waiters.isEmpty {
            giveUp()
        } else {
            priorityChanged()
        }
    }

    /// Answers every waiter with `result`.
    func finish(with result: Result<Value, any Error>) {
        detach()
        partials?.close()
        self.result = result
        let answered = waiters
        waiters = [:]
        for (id, waiter) in answered {
            progress.remove(id)
            waiter.continuation?.resume(with: result)
        }
    }

    private func giveUp() {
        detach()
        partials?.close()
        cancellation.cancel()
        if parked != nil || ticket?.withdraw() == true {
            parked = nil
            withdrawn?()
        }
        task?.cancel()
    }
}

/// A work a task waits on, whatever its value: what the pipeline needs to move or withdraw the task.
protocol StageWaiting: AnyObject {
    func setPriority(_ priority: WorkPriority, for id: UUID)
    func leave(_ id: UUID)
}

extension SharedWork: StageWaiting {}
