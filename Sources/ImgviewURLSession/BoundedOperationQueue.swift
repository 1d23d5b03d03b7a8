import Foundation

/// The URLSession delegate queue: makes the session wait while too many of its callbacks are pending.
///
/// FoundationNetworking on Linux adds one operation per body chunk to the delegate queue from its
/// libcurl thread and never waits for them, so a delegate that falls behind (hashing and writing a
/// large body) let the body pile up in memory. Overriding `addOperation(_:)`, which
/// FoundationNetworking calls for every callback, lets that thread wait instead: libcurl stops
/// reading the socket and TCP slows the sender, as curl's own blocking writes do.
///
/// It waits from `highWater` pending operations until they drain to `lowWater`. The gap matters:
/// resuming after a few chunks reopened the TCP window by less than a segment, the sender waited for
/// its persist timer, and many small transfers took far longer (DECISIONS.md, "The URLSession
/// delegate queue makes libcurl wait"). The wait is
/// bounded by `patience`, so should a callback ever wait for the session's own queue, transfers
/// slow down rather than deadlock.
package final class BoundedOperationQueue: OperationQueue, @unchecked Sendable {
    private let condition = NSCondition()
    private var pending = 0
    private var waiting = 0
    private let highWater: Int
    private let lowWater: Int
    private let patience: TimeInterval

    /// - Parameters:
    ///   - highWater: pending callbacks (a body chunk each) at which the session waits.
    ///   - lowWater: pending callbacks at which it goes on.
    init(highWater: Int = 512, lowWater: Int = 256, patience: TimeInterval = 1) {
        self.highWater = highWater
        self.lowWater = lowWater
        self.patience = patience
        super.init()
    }

    /// How many adders wait for the queue to drain now.
    package var waitingAdders: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting
    }

    package override func addOperation(_ block: @escaping @Sendable () -> Void) {
        condition.lock()
        if pending >= highWater {
            let deadline = Date(timeIntervalSinceNow: patience)
            waiting += 1
            while pending > lowWater, condition.wait(until: deadline) {}
            waiting -= 1
        }
        pending += 1
        condition.unlock()
        super.addOperation { [self] in
            block()
            condition.lock()
            pending -= 1
            if pending <= lowWater { condition.broadcast() }
            condition.unlock()
        }
    }
}
