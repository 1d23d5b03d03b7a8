import ImgviewSupport
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Where the handlers' signals are acted on: a thread of its own reads their numbers from a pipe
/// and calls the observers, so nothing a handler does has to be async-signal-safe beyond a
/// `write`.
///
/// Requests to end go to the latest termination observer, with `ProcessSignals.patience` to wind
/// down; without one, or on a second request, the process ends at once. SIGTSTP and SIGWINCH are
/// caught only while someone observes them, and otherwise keep their default actions.
final class SignalRelay: Sendable {
    static let shared = SignalRelay()

    private struct State {
        var nextID = 0
        var termination: [(id: Int, handler: @Sendable (Int32) -> Void)] = []
        var suspension: [(id: Int, suspending: @Sendable () -> Void, resumed: @Sendable () -> Void)] = []
        var windowChange: [(id: Int, handler: @Sendable () -> Void)] = []
    }

    private let state = Locked(State())

    /// The pipe's write end, for the handlers; -1 until `start`.
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Opens the pipe and starts the thread that reads it.
    static func start() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A handler must never block on a full pipe.
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        writeEnd = ends[1]
        readEnd = ends[0]
        _ = shared
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { _ in SignalRelay.shared.run() }, nil) == 0 else {
            writeEnd = -1
            return
        }
        pthread_detach(thread)
    }

    nonisolated(unsafe) private static var readEnd: Int32 = -1

    /// From a handler: passes `number` on; false when it cannot be (no thread, a full pipe).
    static func notify(_ number: Int32) -> Bool {
        guard writeEnd >= 0 else { return false }
        var byte = UInt8(truncatingIfNeeded: number)
        return write(writeEnd, &byte, 1) == 1
    }

    // MARK: Observers

    func observeTermination(_ handler: @escaping @Sendable (Int32) -> Void) -> SignalObservation {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.termination.append((state.nextID, handler))
            return state.nextID
        }
        return SignalObservation { [self] in state.withLock { $0.termination.removeAll { $0.id == id } } }
    }

    func observeSuspension(
        suspending: @escaping @Sendable () -> Void, resumed: @escaping @Sendable () -> Void
    ) -> SignalObservation {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.suspension.append((state.nextID, suspending, resumed))
            if state.suspension.count == 1 { Self.catchSignal(SIGTSTP) }
            return state.nextID
        }
        return SignalObservation { [self] in
            state.withLock { state in
                state.suspension.removeAll { $0.id == id }
                if state.suspension.isEmpty { Self.defaultAction(SIGTSTP) }
            }
        }
    }

    /// Whether SIGTSTP is caught now (something observes it).
    var catchesSuspension: Bool { state.withLock { !$0.suspension.isEmpty } }

    func observeWindowChange(_ handler: @escaping @Sendable () -> Void) -> SignalObservation {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.windowChange.append((state.nextID, handler))
            if state.windowChange.count == 1 { Self.catchSignal(SIGWINCH) }
            return state.nextID
        }
        return SignalObservation { [self] in
            state.withLock { state in
                state.windowChange.removeAll { $0.id == id }
                if state.windowChange.isEmpty { Self.defaultAction(SIGWINCH) }
            }
        }
    }

    // MARK: The thread

    private func run() -> UnsafeMutableRawPointer? {
        var windingDown: (signal: Int32, deadline: ContinuousClock.Instant)?
        while true {
            var poller = pollfd(fd: Self.readEnd, events: Int16(POLLIN), revents: 0)
            // The wait is worked out on every try, so an interrupted one goes on to the same deadline.
            let polled = try? Errno.retryingOnInterrupt { () -> Int32 in
                var timeout: Int32 = -1
                if let windingDown {
                    let left = ContinuousClock.now.duration(to: windingDown.deadline)
                    let (seconds, attoseconds) = left.components
                    timeout = max(0, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
                }
                return poll(&poller, 1, timeout)
            }
            guard let ready = polled else { continue }
            if ready == 0, let windingDown, ContinuousClock.now >= windingDown.deadline {
                // Too slow to wind down: ended as a command that observes nothing is.
                endNow(windingDown.signal)
            }
            var byte: UInt8 = 0
            guard read(Self.readEnd, &byte, 1) == 1 else { continue }
            let number = Int32(byte)
            switch number {
            case SIGTSTP:
                suspend()
            case SIGWINCH:
                for observer in state.withLock({ $0.windowChange }) { observer.handler() }
            default:
                if windingDown != nil { endNow(number) }
                guard let observer = state.withLock({ $0.termination.last }) else { endNow(number) }
                windingDown = (number, .now + ProcessSignals.patience)
                observer.handler(number)
            }
        }
    }

    /// Ends the process at once after a request to end: temporary folders removed, the terminal
    /// restored, one line, 128+N.
    private func endNow(_ number: Int32) -> Never {
        ExitCleanup.runAll()
        FatalSignalHandler.endNow(number)
    }

    /// Ctrl-Z while someone draws: they give the terminal back, the process stops as the shell
    /// expects (the rest of the job got the signal from the terminal already), and once `fg`
    /// continues it they take the terminal again.
    private func suspend() {
        let observers = state.withLock { $0.suspension }
        for observer in observers { observer.suspending() }
        JobControlStop.stopThisProcess(thenCatch: !observers.isEmpty)
        for observer in observers { observer.resumed() }
    }

    // MARK: Dispositions

    static func catchSignal(_ number: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = relaySignal
        action.sa_flags = Int32(SA_RESTART)
        sigemptyset(&action.sa_mask)
        sigaction(number, &action, nil)
    }

    static func defaultAction(_ number: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigaction(number, &action, nil)
    }
}

/// The handler of the signals only observed (SIGTSTP, SIGWINCH): passes them to the relay thread.
private func relaySignal(_ number: Int32) {
    let savedErrno = errno
    _ = SignalRelay.notify(number)
    errno = savedErrno
}
