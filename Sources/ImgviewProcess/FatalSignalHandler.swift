import ImgviewSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The handler every fatal signal runs, and the state it reads: async-signal-safe calls only
/// (`write`, `tcsetattr`, `sigaction`, `raise`, `_exit`), no allocation, no lock.
enum FatalSignalHandler {
    /// The first request to end; 0 before one.
    static var firstTermination: Int32 { termination.load(ordering: .acquiring) }

    /// Installs the handler for `signals` (requests to end) and `crashes` (the crash signals,
    /// which `isCrash` must name too).
    static func install(termination signals: [Int32], crashes: [Int32]) {
        // Touched here, so no global is first initialised inside a handler.
        _ = termination.load(ordering: .relaxed)
        _ = requests.load(ordering: .relaxed)
        _ = lineWritten.load(ordering: .relaxed)
        _ = TerminalRestorations.current.load(ordering: .relaxed)
        _ = interruptedLine
        MappedRegions.prepare()
        let debugBuild: Bool
        #if DEBUG
            debugBuild = true
        #else
            debugBuild = false
        #endif
        handsCrashesToReporter = debugBuild || getenv("SWIFT_BACKTRACE") != nil
        for number in crashes {
            crashLines[Int(number)] = Line("imgview: crashed (\(signalName(number))): a bug; SWIFT_BACKTRACE=enable=yes shows where\n")
        }
        installAlternateStack()
        for number in signals + crashes {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = handleFatalSignal
            action.sa_flags = Int32(SA_SIGINFO | SA_ONSTACK | SA_RESTART)
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, previousActions + Int(number))
        }
    }

    /// Puts the terminal back: what `TerminalRestorations` holds now, latest first.
    static func restoreTerminal() {
        guard let raw = UnsafeMutableRawPointer(bitPattern: TerminalRestorations.current.load(ordering: .acquiring)) else { return }
        let snapshot = raw.assumingMemoryBound(to: TerminalRestorations.Snapshot.self).pointee
        var index = snapshot.count
        while index > 0 {
            index -= 1
            let entry = snapshot.entries[index]
            if let modes = entry.modes { tcsetattr(entry.modesDescriptor, TCSANOW, modes) }
            if let bytes = entry.bytes { writeAll(entry.descriptor, bytes, entry.byteCount) }
        }
    }

    /// Writes `imgview: interrupted` on stderr, once per process whoever asks.
    static func reportInterruption() {
        guard lineWritten.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        writeAll(STDERR_FILENO, interruptedLine.bytes, interruptedLine.count)
    }

    /// Ends the process at once after a request to end: restored, one line, 128+N.
    static func endNow(_ number: Int32) -> Never {
        restoreTerminal()
        reportInterruption()
        _exit(128 + number)
    }

    // MARK: The handler

    fileprivate static func handle(_ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
        let savedErrno = errno
        defer { errno = savedErrno }
        if number == SIGBUS, let info, isMappedFileCutShort(info) { return }
        if isCrash(number, info) {
            crashed(number, info, context)
            return
        }
        _ = termination.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
        let count = requests.add(1, ordering: .acquiringAndReleasing).newValue
        // The relay thread acts on it; should that thread be stuck, the third request ends here.
        if count >= 3 || !SignalRelay.notify(number) { endNow(number) }
    }

    /// Whether a SIGBUS is a read past the end of a mapped file that was cut short, now read as
    /// zeros (`MappedRegions`): the read runs again, and its reader reports the file as changed.
    private static func isMappedFileCutShort(_ info: UnsafeMutablePointer<siginfo_t>) -> Bool {
        guard info.pointee.si_code == Int32(BUS_ADRERR), let address = info.pointee._sifields._sigfault.si_addr else { return false }
        return MappedRegions.recover(faultAddress: UInt(bitPattern: address))
    }

    /// Whether `number` means this program went wrong: a crash signal the kernel raised for a
    /// fault, or one this process raised itself (`abort`), not one another process sent.
    private static func isCrash(_ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?) -> Bool {
        switch number {
        case SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS: break
        default: return false
        }
        guard let info else { return true }
        // si_code > 0: raised by the kernel for a fault; otherwise sent by kill/tgkill/sigqueue.
        return info.pointee.si_code > 0 || info.pointee._sifields._kill.si_pid == getpid()
    }

    private static func crashed(_ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
        restoreTerminal()
        let previous = previousActions[Int(number)]
        let handler = unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self)
        let previousIsAFunction = handler != unsafeBitCast(SIG_DFL, to: Int.self) && handler != unsafeBitCast(SIG_IGN, to: Int.self)
        if handsCrashesToReporter, previousIsAFunction {
            var restored = previous
            sigaction(number, &restored, nil)
            if previous.sa_flags & Int32(SA_SIGINFO) != 0 {
                previous.__sigaction_handler.sa_sigaction(number, info, context)
            } else {
                previous.__sigaction_handler.sa_handler(number)
            }
        } else {
            let line = crashLines[Int(number)]
            writeAll(STDERR_FILENO, line.bytes, line.count)
        }
        // Die of it: pending until this handler returns, or the fault happens again, undefended.
        var fallback = sigaction()
        fallback.__sigaction_handler.sa_handler = SIG_DFL
        sigaction(number, &fallback, nil)
        raise(number)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>?, _ count: Int) {
        // Not swift-system's writeAll (an untyped throw boxes its error on the heap) nor a generic helper: a handler must not allocate.
        guard let bytes else { return }
        var offset = 0
        while offset < count {
            let written = write(descriptor, bytes + offset, count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// A stack of its own for the handler on the installing thread, so a stack overflow still
    /// restores. Mapped, not allocated: AddressSanitizer unmaps an exiting thread's alternate
    /// stack, which must then be a mapping of its own.
    private static func installAlternateStack() {
        let size = 64 * 1024
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { return }
        var stack = stack_t()
        stack.ss_sp = mapped
        stack.ss_size = size
        sigaltstack(&stack, nil)
    }

    private static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGABRT: "SIGABRT"
        case SIGTRAP: "SIGTRAP"
        case SIGSYS: "SIGSYS"
        default: "signal \(number)"
        }
    }
}

/// A line kept in memory of its own, for a handler to write without touching Swift's runtime;
/// never changed or freed once made.
struct Line: @unchecked Sendable {
    let bytes: UnsafePointer<UInt8>?
    let count: Int

    init(_ text: String) {
        let utf8 = Array(text.utf8)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: utf8.count)
        buffer.initialize(from: utf8, count: utf8.count)
        bytes = UnsafePointer(buffer)
        count = utf8.count
    }

    static let empty = Line(bytes: nil, count: 0)

    private init(bytes: UnsafePointer<UInt8>?, count: Int) {
        self.bytes = bytes
        self.count = count
    }
}

/// The C entry point.
private func handleFatalSignal(_ number: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    FatalSignalHandler.handle(number, info, context)
}

/// Signals run from 1 to 64 on Linux; one slot each.
private let signalSlots = 65
private let termination = Atomic<Int32>(0)
private let requests = Atomic<Int32>(0)
private let lineWritten = Atomic<Bool>(false)
private let interruptedLine = Line("imgview: interrupted\n")
nonisolated(unsafe) private var handsCrashesToReporter = false
/// The actions before ours (the Swift runtime's crash reporter's, where it installed one).
nonisolated(unsafe) private let previousActions: UnsafeMutablePointer<sigaction> = {
    let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: signalSlots)
    actions.initialize(repeating: sigaction(), count: signalSlots)
    return actions
}()
nonisolated(unsafe) private let crashLines: UnsafeMutablePointer<Line> = {
    let lines = UnsafeMutablePointer<Line>.allocate(capacity: signalSlots)
    lines.initialize(repeating: .empty, count: signalSlots)
    return lines
}()
