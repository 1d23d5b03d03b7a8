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
/// back continues the same download.
public final class PreviewTask: Sendable {
    public let request: PreviewRequest
    let id = UUID()
    let priorityBox: Locked<WorkPriority>
    private let lastProgress = Locked<(received: Int64, expected: Int64?)?>(nil)
    private let lastPartial = Locked<PartialPreview?>(nil)
    private let task: Locked<Task<PreviewResponse, any Error>?> = Locked(nil)
    private let pipeline: PreviewPipeline

    init(request: PreviewRequest, priority: WorkPriority, pipeline: PreviewPipeline, partial: PartialPreviews.Handler? = nil) {
        self.request = request
        priorityBox = Locked(priority)
        self.pipeline = pipeline
        if let partial {
            self.partial = { [lastPartial] picture in
                lastPartial.withLock { $0 = picture }
                partial(picture)
            }
        } else {
            self.partial = nil
        }
    }

    /// Receives pictures of the download while it arrives, when the task asked for them.
    let partial: PartialPreviews.Handler?

    /// The latest picture of the download while it arrives, if one was made.
    public var partialPreview: PartialPreview? {
        lastPartial.withLock { $0 }
    }

    /// Starts the work; called once, by the pipeline.
    func start(progress: ImageService.Progress?) {
        let relay: ImageService.Progress = { [lastProgress] received, expected in
            lastProgress.withLock { $0 = (received, expected) }
            progress?(received, expected)
        }
        let pipeline = pipeline
        // In the foreground from the moment it is asked for, not from when its work starts.
        pipeline.setForeground(id, priority > .low)
        task.withLock { $0 = Task { try await pipeline.run(self, progress: relay) } }
        pipeline.send(.start(self))
    }

    /// How urgently the pipeline works on this task; changing it moves its work in the queues.
    public var priority: WorkPriority {
        get { priorityBox.withLock { $0 } }
        set {
            let changed = priorityBox.withLock { current -> Bool in
                defer { current = newValue }
                return current != newValue
            }
            guard changed else { return }
            pipeline.setForeground(id, newValue > .low)
            pipeline.send(.reprioritize(self))
        }
    }

    /// The latest progress of the transfer, if one has reported any.
    public var progress: (received: Int64, expected: Int64?)? {
        lastProgress.withLock { $0 }
    }

    /// Gives the preview up: the response is `CancellationError`, and work nobody else waits for stops.
    public func cancel() {
        task.withLock { $0 }?.cancel()
        pipeline.send(.cancel(self))
    }

    /// The finished preview; throws `CancellationError` if the task was cancelled.
    public var response: PreviewResponse {
        get async throws {
            guard let task = task.withLock({ $0 }) else { throw CancellationError() }
            return try await task.value
        }
    }
}
