#if canImport(Glibc)
    import Glibc
#endif

/// Stopping the process for job control, the one way imgview does it: from the browser's Ctrl-Z
/// key (raw mode, so the terminal sent no signal) and after a SIGTSTP the relay caught.
enum JobControlStop {
    /// Stops this process with SIGTSTP and returns once SIGCONT continues it.
    ///
    /// `raise` delivers to the calling thread, which may block signals (Dispatch's threads do),
    /// so the signal is unblocked there for the moment; with its default action back it stops
    /// the process before `raise` returns. `thenCatch` puts the relay's handler back afterwards.
    static func stopThisProcess(thenCatch: Bool) {
        SignalRelay.defaultAction(SIGTSTP)
        var stop = sigset_t()
        var mask = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stop, &mask)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        if thenCatch { SignalRelay.catchSignal(SIGTSTP) }
    }

    /// Stops the whole job, as the terminal's own Ctrl-Z would: the other processes of the
    /// foreground group first, with the signal ignored here meanwhile (one sent to the whole
    /// process could be taken later by another thread and be lost), then this one.
    static func stopJob(thenCatch: Bool) {
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigaction(SIGTSTP, &ignore, nil)
        kill(0, SIGTSTP)
        stopThisProcess(thenCatch: thenCatch)
    }
}
