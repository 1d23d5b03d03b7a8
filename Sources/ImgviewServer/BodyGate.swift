import Foundation
import ImgviewSupport

/// Holds a slow body part way until the test opens it (`Fault.held`): a download that is certainly
/// still under way at that point, however long a loaded machine takes to get there.
public final class BodyGate: Sendable, Equatable {
    private struct State {
        var isOpen = false
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// Lets every held body go on, now and from now on.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open, or the waiting task is cancelled (the server stopping).
    func wait() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goesOn = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if goesOn { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    public static func == (left: BodyGate, right: BodyGate) -> Bool { left === right }
}
