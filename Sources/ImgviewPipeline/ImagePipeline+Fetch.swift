import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ImagePipeline {
    /// The bytes `request` may take from memory without asking anyone (`PipelineMemory.usable`).
    func remembered(_ request: ImageRequest) -> ImageResponse? {
        guard request.cachePolicy == .useCache, let known = memory.usable(request.url, needsDigest: request.needsDigest),
            let data = known.data
        else { return nil }
        return ImageResponse(
            request: request, entry: known.entry, source: .memory, body: .data(data), elapsed: .zero, isCached: known.isCached)
    }

    /// The bytes for `request` as `waiter`: from memory, else from the fetch under way for it, or
    /// a new one.
    func fetch(
        _ request: ImageRequest, waiter: WorkWaiter, progress: TransferProgress? = nil, body: BodyTap? = nil
    ) async throws -> ImageResponse {
        if let remembered = remembered(request) { return remembered }
        guard let (work, isNew) = join(request, waiter: waiter, progress: progress, body: body) else { throw CancellationError() }
        if isNew { startFetch(work, for: request) }
        return try await waiter.wait(for: work)
    }

    /// Joins `waiter` to the fetch for `request`, making one (with pictures of its body for
    /// whoever asks, when it comes from the network) when none is under way.
    func join(
        _ request: ImageRequest, waiter: WorkWaiter, progress: TransferProgress?, body: BodyTap? = nil
    ) -> (work: SharedWork<ImageResponse>, isNew: Bool)? {
        waiter.join(fetches, request, progress: progress, body: body) { [configuration] in
            // Only network bodies arrive slowly enough to be worth pictures of their start.
            guard !request.url.isFileURL, let policy = configuration.partialPreviews else { return nil }
            return PartialPreviews(policy: policy, configuration: configuration)
        }
    }

    /// Runs the fetcher for `work`, a fetch just made: its progress and body go to everyone who
    /// joined, and what it brings is remembered before they hear.
    func startFetch(_ work: SharedWork<ImageResponse>, for request: ImageRequest) {
        let fetcher = configuration.fetcher
        let memory = memory
        let transfers = transfers
        let transfer = UniqueID()
        transfers.withLock { $0[transfer] = work }
        work.start {
            defer { transfers.withLock { _ = $0.removeValue(forKey: transfer) } }
            // A file's identity is taken before it is read: a change during the read shows as a change later.
            let stamp = request.url.isFileURL ? FileStamp(of: request.url) : nil
            let partials = work.partials
            do {
                let response = try await fetcher.fetch(
                    request,
                    progress: { received, expected in
                        partials?.expect(expected)
                        work.progress.report(received, expected)
                    },
                    body: { offset, bytes in
                        partials?.receive(offset, bytes)
                        work.bodies.report(offset, bytes)
                    })
                memory.remember(response, fileStamp: response.fileStamp ?? stamp)
                return .success(response)
            } catch {
                return .failure(error)
            }
        }
    }
}
