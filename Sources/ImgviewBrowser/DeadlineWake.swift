import ImgviewImaging

/// One pending wake-up at a deadline on the presenter's clock (the next animation frame, the next
/// slide): asking for another deadline replaces it, nil cancels it, the same deadline leaves it be.
@MainActor
final class DeadlineWake {
    private var pending: (deadline: Duration, task: Task<Void, Never>)?

    /// Runs `action` once `clock` reaches `deadline`, unless asked for something else first.
    func schedule(at deadline: Duration?, on clock: any PlaybackClock, _ action: @escaping @MainActor () -> Void) {
        guard pending?.deadline != deadline else { return }
        cancel()
        guard let deadline else { return }
        let task = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            guard let self, self.pending?.deadline == deadline else { return }
            self.pending = nil
            action()
        }
        pending = (deadline, task)
    }

    func cancel() {
        pending?.task.cancel()
        pending = nil
    }
}
