import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The tasks under way above low priority: while there are any, low-priority work waits in the
/// scheduler's queue, so a prefetch never holds the thread the image on screen is about to need.
final class ForegroundTasks: Sendable {
    private let tasks = Locked<Set<UniqueID>>([])
    private let scheduler: any WorkScheduling

    init(scheduler: any WorkScheduling) {
        self.scheduler = scheduler
    }

    func set(_ id: UniqueID, isForeground: Bool) {
        tasks.withLock { tasks in
            let wasEmpty = tasks.isEmpty
            if isForeground { tasks.insert(id) } else { tasks.remove(id) }
            if wasEmpty != tasks.isEmpty { scheduler.holdLowPriority(!tasks.isEmpty) }
        }
    }

    /// Runs `body` counted in the foreground (a one-off request: `preview(for:)`, `facts`, `bytes`).
    func during<T>(_ body: () async throws -> T) async rethrows -> T {
        let id = UniqueID()
        set(id, isForeground: true)
        defer { set(id, isForeground: false) }
        return try await body()
    }
}
