import ImgviewSupport

/// How many pieces of background work are under way, and a way to wait until none is.
final class PendingCount: Sendable {
    private struct State {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func begin() {
        state.withLock { $0.count += 1 }
    }

    func end() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns when the count is zero (at once if it is).
    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.count == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
