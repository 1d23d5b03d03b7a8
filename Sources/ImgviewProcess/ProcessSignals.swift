import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The one place imgview's process meets signals: every command installs it first, and nothing
/// else in imgview installs a handler or a signal source.
///
/// Every signal whose default action ends the process is caught, and each is one of two kinds:
/// - **A request to end** (Ctrl-C, Ctrl-\, `kill`, a hang-up, a resource limit; and a crash
///   signal someone else sent): the command that observes it (`onTermination`,
///   `cancellingOnTermination`) winds its work down, its clean-up runs, and it ends with one line,
///   `imgview: interrupted`, and status 128+N (`exit(terminatedBy:)`). A command that observes
///   nothing, one that takes too long to wind down, or a second request ends at once the same
///   way: temporary folders removed, the terminal restored, the line, 128+N.
/// - **A crash** (the program faulted or trapped): the terminal is restored first, then a debug
///   build, or a run with `SWIFT_BACKTRACE` set, hands it to the Swift runtime's crash reporter,
///   and a release build prints one line saying so; the process then dies of the signal.
///
/// Handlers do only what is async-signal-safe: they write the signal's number into a pipe that a
/// thread of this module reads, and everything else (observers, clean-up, exit) happens there.
public enum ProcessSignals {
    /// Requests to end: signals sent by the keyboard, another process or a limit, whose default
    /// action ends the process.
    static let terminationSignals: [Int32] = [
        SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPWR, SIGSTKFLT, SIGIO,
    ]
    /// What the processor raises when the program goes wrong; sent by someone else, a request to end.
    static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS]

    /// How long a command may take to wind down after a request to end before it is ended at once.
    public static let patience: Duration = .seconds(5)

    /// Installs the handlers and starts the thread that acts on them. Call first thing in `main`;
    /// every other entry point installs too, so calling it again does nothing.
    public static func install() {
        _ = installation
    }

    private static let installation: Void = {
        signal(SIGPIPE, SIG_IGN)
        // A parent may start us with them blocked (a thread of a Swift program's pool blocks every
        // signal, and a child inherits its mask). The thread that runs a one-shot command and the
        // relay started next take them, as the main queue's loop did for the asynchronous `main`.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in terminationSignals + crashSignals + [SIGTSTP, SIGCONT, SIGWINCH] { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        SignalRelay.start()
        FatalSignalHandler.install(termination: terminationSignals, crashes: crashSignals)
    }()

    /// A request to end, observed: `handler` runs once, on this module's thread, with the first
    /// request's signal; what it starts must end the process (through `exit(terminatedBy:)`)
    /// within `patience`. The latest observation wins; cancel it when the work is done.
    public static func onTermination(_ handler: @escaping @Sendable (Int32) -> Void) -> SignalObservation {
        install()
        return SignalRelay.shared.observeTermination(handler)
    }

    /// The first request to end that arrived, if any.
    public static var terminationSignal: Int32? {
        let number = FatalSignalHandler.firstTermination
        return number == 0 ? nil : number
    }

    /// Runs `work`, cancelled by a request to end; throws `Terminated` once it has wound down
    /// after one.
    public static func cancellingOnTermination<Result: Sendable>(
        _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let task = Task(executorPreference: PreferredExecutor.current) { try await work() }
        let observation = onTermination { _ in task.cancel() }
        let result = await task.result
        observation.cancel()
        if let number = terminationSignal { throw Terminated(signal: number) }
        return try result.get()
    }

    /// Suspends until a request to end arrives and returns its signal (`serve`'s way to stop).
    public static func nextTermination() async -> Int32 {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let observation = onTermination { continuation.yield($0) }
        defer { observation.cancel() }
        for await number in stream { return number }
        return SIGTERM
    }

    /// Ends the process after a request to end, once the command has wound down: temporary
    /// folders removed, the terminal restored, one line, status 128+N.
    public static func exit(terminatedBy number: Int32) -> Never {
        ExitCleanup.runAll()
        FatalSignalHandler.restoreTerminal()
        FatalSignalHandler.reportInterruption()
        Glibc.exit(128 + number)
    }

    /// Ends the process with `status` after a failure nothing more can be done about (stdout that
    /// cannot be written): temporary folders removed and the terminal's modes put back first.
    public static func exit(status: Int32) -> Never {
        ExitCleanup.runAll()
        FatalSignalHandler.restoreTerminal()
        Glibc.exit(status)
    }

    /// Ends the process as `cat` ends when its reader has gone: quietly, by SIGPIPE, after the
    /// temporary folders are removed and the terminal's modes are put back.
    public static func endByBrokenPipe() -> Never {
        ExitCleanup.runAll()
        FatalSignalHandler.restoreTerminal()
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigaction(SIGPIPE, &action, nil)
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipe, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }
}

/// A command's work ended by a request to end (signal `signal`): the process exits 128+N.
public struct Terminated: Error, Sendable, Equatable {
    public let signal: Int32

    public init(signal: Int32) {
        self.signal = signal
    }
}

/// An observer registered with `ProcessSignals`; cancel it once it is no longer wanted.
public final class SignalObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    public func cancel() {
        onCancel()
    }
}
