import CNCurses
import ImgviewBrowser

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Puts the terminal back when the process dies of a signal, where ncurses' `endwin` can no
/// longer run: restores the saved tty modes and writes the terminal's own reset strings, using
/// only async-signal-safe calls, then lets the signal take its course.
///
/// It covers every signal whose default action ends the process and that the browser does not
/// handle itself (SIGINT, SIGTERM and SIGHUP end it cleanly through the main queue): crashes,
/// SIGQUIT, resource limits, and the user and timer signals nobody here sends. Installed over the
/// Swift runtime's backtracer, which would otherwise take SIGQUIT and the crashes first and print
/// over the browser's screen, with the terminal still raw.
enum TerminalRestorer {
    static let crashSignals: [Int32] = [
        SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT, SIGXCPU, SIGXFSZ,
        SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPWR, SIGSTKFLT,
    ]

    /// The tty modes from before ncurses changed them.
    static func saveModes() {
        if tcgetattr(STDIN_FILENO, savedModes) == 0 { hasSavedModes = true }
    }

    /// Installs the handlers; call once ncurses has started, so terminfo is loaded.
    static func installCrashHandlers() {
        // Leave the alternate screen, show the cursor, reset attributes, leave keypad mode.
        var reset: [UInt8] = []
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            if let value = imgview_terminfo_string(capability) { reset += Array(String(cString: value).utf8) }
        }
        reset += Array(MouseInputDecoder.disableSequence.utf8) + Array("\r\n".utf8)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: reset.count)
        buffer.initialize(from: reset, count: reset.count)
        resetBytes = buffer
        resetCount = reset.count
        // Its own stack, so that a stack overflow (SIGSEGV on the guard page) still restores.
        // Mapped, not allocated: the main actor's jobs may run on a thread that later exits, and
        // AddressSanitizer unmaps whatever alternate stack an exiting thread has, which must
        // then be a mapping of its own (a heap block made it abort).
        let mapped = mmap(nil, alternateStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if let mapped, mapped != MAP_FAILED {
            var stack = stack_t()
            stack.ss_sp = mapped
            stack.ss_size = alternateStackSize
            sigaltstack(&stack, nil)
        }
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: crashSignals.count)
        for (index, number) in crashSignals.enumerated() {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = restoreTerminalAndDie
            action.sa_flags = Int32(SA_ONSTACK)
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, previous + index)
        }
        previousActions = previous
    }

    /// Puts back the handlers that were there before (the Swift runtime's backtracer), after a clean `endwin`.
    static func uninstallCrashHandlers() {
        guard let previousActions else { return }
        for (index, number) in crashSignals.enumerated() { sigaction(number, previousActions + index, nil) }
    }

    private static let alternateStackSize = 64 * 1024
}

/// On the heap rather than a global `termios`: AddressSanitizer sizes a Swift global of that type
/// at 57 bytes, so glibc's 60-byte write into it read as an overflow (scripts/sanitize.sh).
nonisolated(unsafe) private let savedModes: UnsafeMutablePointer<termios> = {
    let modes = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    modes.initialize(to: termios())
    return modes
}()
nonisolated(unsafe) private var hasSavedModes = false
nonisolated(unsafe) private var resetBytes: UnsafeMutablePointer<UInt8>?
nonisolated(unsafe) private var resetCount = 0
/// The actions before ours, one per crash signal, in `TerminalRestorer.crashSignals` order.
nonisolated(unsafe) private var previousActions: UnsafeMutablePointer<sigaction>?

/// The crash handler: async-signal-safe calls only.
private func restoreTerminalAndDie(_ number: Int32) {
    if hasSavedModes { tcsetattr(STDIN_FILENO, TCSANOW, savedModes) }
    if let resetBytes { _ = write(STDOUT_FILENO, resetBytes, resetCount) }
    // The default action, raised again: the process ends as the signal would have ended it. (Chaining
    // to the Swift runtime's backtracer was tried: it returns after a signal sent by kill, and the
    // process would live on behind a restored terminal.)
    signal(number, SIG_DFL)
    raise(number)
}
