import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Hands one transfer's progress to every waiter still interested.
final class ProgressFanout: Sendable {
    private struct State {
        var handlers: [UniqueID: TransferProgress] = [:]
        var last: (received: Int64, expected: Int64?)?
    }

    private let state = Locked(State())

    func add(_ id: UniqueID, _ handler: TransferProgress?) {
        guard let handler else { return }
        let last = state.withLock { state in
            state.handlers[id] = handler
            return state.last
        }
        // A waiter that joins late sees where the transfer is at once.
        if let last { handler(last.received, last.expected) }
    }

    func remove(_ id: UniqueID) {
        state.withLock { _ = $0.handlers.removeValue(forKey: id) }
    }

    func report(_ received: Int64, _ expected: Int64?) {
        let handlers = state.withLock { state in
            state.last = (received, expected)
            return Array(state.handlers.values)
        }
        for handler in handlers { handler(received, expected) }
    }
}

/// Hands a transfer's body chunks to every waiter that wants them.
final class BodyFanout: Sendable {
    private let taps = Locked<[UniqueID: BodyTap]>([:])

    func add(_ id: UniqueID, _ tap: BodyTap?) {
        guard let tap else { return }
        taps.withLock { $0[id] = tap }
    }

    func remove(_ id: UniqueID) {
        taps.withLock { _ = $0.removeValue(forKey: id) }
    }

    func report(_ offset: Int64, _ bytes: UnsafeRawBufferPointer) {
        for tap in taps.withLock({ Array($0.values) }) { tap(offset, bytes) }
    }
}
