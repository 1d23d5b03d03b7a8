import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A preview on its way: the pipeline's answer to one request, which its consumer can move up or
/// down in priority or give up.
///
/// The browser keeps one per tab it may show soon: the selected tab's at `.high`, its
/// neighbours' at `.low`; leaving a tab lowers its task rather than cancelling it, so coming
/// back continues the same download. Every change takes effect before the call returns.
public final class PreviewTask: Sendable {
    private struct State {
        var isFinished = false
        var progress: (received: Int64, expected: Int64?)?
        var partialPreview: PartialPreview?
        var task: Task<PreviewResponse, any Error>?
    }

    public let request: PreviewRequest
    let waiter: WorkWaiter
    private let state = Locked(State())
    private let pipeline: ImagePipeline
    /// Receives pictures of the download while it arrives, when the task asked for them.
    let partial: PartialPreviews.Handler?

    var id: UniqueID { waiter.id }

    init(request: PreviewRequest, priority: WorkPriority, pipeline: ImagePipeline, partial: PartialPreviews.Handler?) {
        self.request = request
        self.pipeline = pipeline
        waiter = WorkWaiter(priority: priority)
        if let handler = partial {
            let state = state
            self.partial = { picture in
                state.withLock { $0.partialPreview = picture }
                handler(picture)
            }
        } else {
            self.partial = nil
        }
    }

    /// Starts the work; called once, by the pipeline, as soon as the task is made.
    func start(progress: TransferProgress?) {
        let relay: TransferProgress = { [state] received, expected in
            state.withLock { $0.progress = (received, expected) }
            progress?(received, expected)
        }
        // In the foreground from the moment it is asked for, not from when its work starts.
        updateForeground()
        // Its place in the fetch is taken now, before anything else the consumer does.
        let reserved = pipeline.reserveFetch(for: self, progress: relay)
        let pipeline = pipeline
        let task = Task(executorPreference: PreferredExecutor.current) { [self] in
            defer {
                state.withLock { $0.isFinished = true }
                updateForeground()
            }
            return try await pipeline.run(self, fetch: reserved)
        }
        state.withLock { $0.task = task }
    }

    /// How urgently the pipeline works on this task; changing it moves its work in the queues.
    public var priority: WorkPriority {
        get { waiter.priority }
        set {
            if waiter.setPriority(newValue) { updateForeground() }
        }
    }

    /// The latest progress of the transfer, if one has reported any.
    public var progress: (received: Int64, expected: Int64?)? {
        state.withLock { $0.progress }
    }

    /// The latest picture of the download while it arrives, if one was made.
    public var partialPreview: PartialPreview? {
        state.withLock { $0.partialPreview }
    }

    /// Gives the preview up: the response is `CancellationError`, and work nobody else waits for stops.
    public func cancel() {
        waiter.cancel()
        state.withLock { $0.task }?.cancel()
        updateForeground()
    }

    /// The finished preview; throws `CancellationError` if the task was cancelled.
    public var response: PreviewResponse {
        get async throws {
            guard let task = state.withLock({ $0.task }) else { throw CancellationError() }
            return try await task.value
        }
    }

    /// Counts the task in the pipeline's foreground while it is under way above low priority.
    private func updateForeground() {
        // Under the task's lock, so that changes made at once from two threads land in order.
        state.withLock { state in
            let isForeground = waiter.withState { priority, isCancelled in !isCancelled && priority > .low }
            pipeline.foreground.set(id, isForeground: isForeground && !state.isFinished)
        }
    }
}
