import Testing

@testable import ImgviewImaging
@testable import ImgviewSupport

/// A playback clock that moves only when a test moves it: animations step frame by frame
/// without a single sleep, and a test can see whether anything waits on the clock at all.
public final class ManualPlaybackClock: PlaybackClock {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var sleepers: [Sleeper] = []
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    public init() {}

    public var now: Duration { state.withLock { $0.now } }

    /// The deadlines of the sleeps under way, earliest first: empty when nothing will wake.
    public var deadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    public func sleep(until deadline: Duration) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (due, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled || deadline <= state.now { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    defer { state.watchers = [] }
                    return (false, state.watchers)
                }
                if due {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time on by `duration` and wakes every sleep that is due.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once something sleeps on the clock (at once if something does); records an issue
    /// if nothing does within `timeout` of real time.
    public func waitForSleeper(timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation) async {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            let late = state.withLock { state in
                defer { state.watchers = [] }
                return state.watchers
            }
            for watcher in late { watcher.resume() }
        }
        await withCheckedContinuation { continuation in
            let sleeping = state.withLock { state -> Bool in
                if !state.sleepers.isEmpty { return true }
                state.watchers.append(continuation)
                return false
            }
            if sleeping { continuation.resume() }
        }
        timer.cancel()
        if deadlines.isEmpty { Issue.record("nothing slept on the clock within \(timeout)", sourceLocation: sourceLocation) }
    }
}
