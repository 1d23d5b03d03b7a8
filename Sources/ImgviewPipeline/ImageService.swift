import Crypto
import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Fetches images for every consumer: memory cache, then disk cache, then the network.
///
/// Concurrent requests for one URL share one transfer, which is cancelled only when every
/// waiter has gone; a waiter that cancels gets `CancellationError` at once and nothing else.
/// Heavy work (file I/O, hashing) runs off the actor, which only keeps the books.
public actor ImageService {
    public typealias Configuration = ImageFetcher.Configuration
    public typealias Progress = TransferProgress
    public typealias BodyTap = ImgviewFetching.BodyTap

    public nonisolated let configuration: Configuration
    private var transfers: [ImageRequest: Transfer] = [:]
    /// Cancelled transfers still cleaning up (closing the connection, removing their temporary file).
    private var windingDown: [UUID: Task<Void, Never>] = [:]

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The image for `request`, from the fastest place that has it.
    ///
    /// Throws `ImagePipelineError`, or `CancellationError` if the calling task is cancelled.
    public func image(for request: ImageRequest, progress: Progress? = nil) async throws -> ImageResponse {
        try await image(for: request, progress: progress, body: nil)
    }

    /// The image for `request`, with `body` seeing its bytes as they arrive when they come from
    /// the network in a transfer this request starts (a request that joins one under way sees
    /// only what is still to come).
    public func image(for request: ImageRequest, progress: Progress?, body: BodyTap?) async throws -> ImageResponse {
        let started = ContinuousClock.now
        if request.cachePolicy == .useCache, let cached = configuration.memoryCache.value(for: request.url),
            configuration.isOffline || cached.entry.isFresh(at: configuration.now())
        {
            return ImageResponse(
                request: request, entry: cached.entry, source: .memory, body: .data(cached.data),
                elapsed: started.duration(to: .now), isCached: cached.isOnDisk)
        }
        let waiter = UUID()
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ImageResponse, any Error>) in
                guard !Task.isCancelled else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let transfer = transfers[request] ?? startTransfer(for: request)
                transfer.waiters[waiter] = continuation
                transfer.progress.add(waiter, progress)
                transfer.bodies.add(waiter, body)
            }
        } onCancel: {
            Task { await self.cancel(waiter: waiter, of: request) }
        }
        return ImageResponse(
            request: request, entry: response.entry, source: response.source, body: response.body,
            elapsed: started.duration(to: .now), isCached: response.isCached)
    }

    /// How many transfers are under way (for tests and the TUI's status line).
    public var activeTransfers: Int { transfers.count }

    /// Cancels every transfer and returns once each has cleaned up after itself.
    ///
    /// A waiter that cancels gets its answer at once, while its transfer winds down on its own;
    /// a process about to exit (on Ctrl-C, say) calls this so no temporary file outlives it.
    public func cancelAll() async {
        for request in Array(transfers.keys) {
            guard let transfer = transfers.removeValue(forKey: request) else { continue }
            for continuation in transfer.waiters.values { continuation.resume(throwing: CancellationError()) }
            transfer.waiters = [:]
            windDown(transfer)
        }
        for task in Array(windingDown.values) { await task.value }
    }

    // MARK: Coalescing

    private final class Transfer {
        let id = UUID()
        var waiters: [UUID: CheckedContinuation<ImageResponse, any Error>] = [:]
        let progress = ProgressFanout()
        let bodies = BodyFanout()
        var task: Task<Void, Never>?
    }

    private func startTransfer(for request: ImageRequest) -> Transfer {
        let transfer = Transfer()
        transfers[request] = transfer
        let fetcher = ImageFetcher(configuration: configuration)
        let fanout = transfer.progress
        let bodies = transfer.bodies
        let id = transfer.id
        transfer.task = Task.detached {
            let result: Result<ImageResponse, any Error>
            do {
                result = .success(
                    try await fetcher.fetch(request, progress: { fanout.report($0, $1) }, body: { bodies.report($0, $1) }))
            } catch {
                result = .failure(error)
            }
            await self.finish(request, transfer: id, with: result)
        }
        return transfer
    }

    private func finish(_ request: ImageRequest, transfer id: UUID, with result: Result<ImageResponse, any Error>) {
        windingDown[id] = nil
        // A transfer whose waiters all left was already removed; a newer one may stand in its place.
        guard let transfer = transfers[request], transfer.id == id else { return }
        transfers[request] = nil
        if case .success(let response) = result, case .data(let data) = response.body {
            configuration.memoryCache.set(
                CachedImage(data: data, entry: response.entry, isOnDisk: response.isCached), for: request.url, cost: data.count)
        }
        let waiters = transfer.waiters
        transfer.waiters = [:]
        for continuation in waiters.values { continuation.resume(with: result) }
    }

    private func cancel(waiter: UUID, of request: ImageRequest) {
        guard let transfer = transfers[request], let continuation = transfer.waiters.removeValue(forKey: waiter) else { return }
        transfer.progress.remove(waiter)
        transfer.bodies.remove(waiter)
        continuation.resume(throwing: CancellationError())
        if transfer.waiters.isEmpty {
            // Nobody waits any more: stop the transfer, and let a new request start afresh.
            transfers[request] = nil
            windDown(transfer)
        }
    }

    private func windDown(_ transfer: Transfer) {
        guard let task = transfer.task else { return }
        task.cancel()
        windingDown[transfer.id] = task
    }
}

/// Hands one transfer's progress to every waiter still interested.
final class ProgressFanout: @unchecked Sendable {
    private let lock = ThreadLock()
    private var handlers: [UUID: ImageService.Progress] = [:]
    private var last: (Int64, Int64?)?

    func add(_ id: UUID, _ handler: ImageService.Progress?) {
        guard let handler else { return }
        let last = lock.withLock {
            handlers[id] = handler
            return self.last
        }
        // A waiter that joins late sees where the transfer is at once.
        if let last { handler(last.0, last.1) }
    }

    func remove(_ id: UUID) {
        lock.withLock { _ = handlers.removeValue(forKey: id) }
    }

    func report(_ received: Int64, _ expected: Int64?) {
        let current = lock.withLock {
            last = (received, expected)
            return Array(handlers.values)
        }
        for handler in current { handler(received, expected) }
    }
}

/// Hands a transfer's body chunks to every waiter that wants them.
final class BodyFanout: Sendable {
    private let taps = Locked<[UUID: ImageService.BodyTap]>([:])

    func add(_ id: UUID, _ tap: ImageService.BodyTap?) {
        guard let tap else { return }
        taps.withLock { $0[id] = tap }
    }

    func remove(_ id: UUID) {
        taps.withLock { _ = $0.removeValue(forKey: id) }
    }

    func report(_ offset: Int64, _ bytes: UnsafeRawBufferPointer) {
        for tap in taps.withLock({ Array($0.values) }) { tap(offset, bytes) }
    }
}
