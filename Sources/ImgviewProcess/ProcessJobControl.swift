import ImgviewSupport

extension ProcessSignals {
    /// Job control through the signals: `show`'s animation gives the terminal back on Ctrl-Z.
    public static let jobControl: any JobControl = ProcessJobControl()

    /// The terminal's size changed (SIGWINCH): `handler` runs on this module's thread until the
    /// observation is cancelled.
    public static func onWindowChange(_ handler: @escaping @Sendable () -> Void) -> SignalObservation {
        install()
        return SignalRelay.shared.observeWindowChange(handler)
    }

    /// Stops the whole job for Ctrl-Z read as a key (the browser's raw mode), as the terminal's
    /// own Ctrl-Z would have; returns once `fg` continues it.
    public static func suspendJob() {
        install()
        JobControlStop.stopJob(thenCatch: SignalRelay.shared.catchesSuspension)
    }
}

/// `JobControl` by SIGTSTP: caught while something observes it, default otherwise.
struct ProcessJobControl: JobControl {
    func observingSuspension<Result: Sendable>(
        suspending: @escaping @Sendable () -> Void, resumed: @escaping @Sendable () -> Void,
        _ body: () async throws -> Result
    ) async throws -> Result {
        ProcessSignals.install()
        let observation = SignalRelay.shared.observeSuspension(suspending: suspending, resumed: resumed)
        defer { observation.cancel() }
        return try await body()
    }
}
