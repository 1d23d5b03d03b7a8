import Foundation

/// Keeps one consumer's image request current: starting a new one cancels the one before, and
/// only the newest request's outcome is ever delivered, however the responses race.
@MainActor
public final class LatestImageTask {
    private let service: ImageService
    private var current: Task<Void, Never>?
    private var generation = 0

    public init(service: ImageService) {
        self.service = service
    }

    /// Requests `request`, superseding any earlier one; `deliver` runs on the main actor only if this is
    /// still the newest request when its outcome arrives. A superseded request is cancelled and silent.
    public func load(
        _ request: ImageRequest, progress: ImageService.Progress? = nil,
        deliver: @escaping @MainActor (Result<ImageResponse, any Error>) -> Void
    ) {
        current?.cancel()
        generation += 1
        let mine = generation
        let service = service
        current = Task { @MainActor [weak self] in
            let result: Result<ImageResponse, any Error>
            do {
                result = .success(try await service.image(for: request, progress: progress))
            } catch {
                result = .failure(error)
            }
            guard let self, self.generation == mine, !Task.isCancelled else { return }
            self.current = nil
            deliver(result)
        }
    }

    /// Cancels the current request; nothing will be delivered for it.
    public func cancel() {
        current?.cancel()
        current = nil
        generation += 1
    }

    /// Whether a request is under way.
    public var isLoading: Bool { current != nil }
}
