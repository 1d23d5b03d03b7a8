import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program started with `posix_spawn`, its standard input and output optionally piped to us.
///
/// What Foundation's `Process` was used for (asking tmux, starting `imgview-server`, opening a
/// file), without Foundation, and without its faults: `Process` leaves SIGPIPE ignored in the child and keeps it in our
/// session (DECISIONS.md, "Running other programs"). Every signal starts at its default
/// disposition with none blocked, and the child inherits no descriptor but its three standard
/// ones: our ends of the pipes are close-on-exec, and everything from 3 up is closed in it.
public final class ChildProcess {
    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// This process's own.
        case inherit
        /// `/dev/null`.
        case null
        /// A pipe to or from this process (`input` or `output`).
        case pipe
        /// Standard error only: wherever standard output goes.
        case output
    }

    public struct CannotStart: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    public let pid: pid_t
    /// The writing end of the child's standard input, when it is piped.
    public private(set) var input: FileDescriptor?
    /// The reading end of the child's standard output, when it is piped.
    public private(set) var output: FileDescriptor?
    private var exitStatus: Int32?

    /// Starts `path` with `arguments` (after its own name).
    ///
    /// - Parameters:
    ///   - environment: variables set (or, with nil, removed) on top of this process's environment.
    ///   - ownProcessGroup: a Ctrl-C on the terminal does not reach it.
    ///   - newSession: it gets a session of its own, without a controlling terminal, so it can
    ///     neither read the terminal nor be stopped for trying (a desktop program opened from the browser).
    public init(
        path: String, arguments: [String], environment: [String: String?] = [:], standardInput: Stream = .inherit,
        standardOutput: Stream = .inherit, standardError: Stream = .inherit, ownProcessGroup: Bool = false, newSession: Bool = false
    ) throws(CannotStart) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ours: [Int32] = []
        var theirs: [Int32] = []
        defer { theirs.forEach { _ = close($0) } }
        func connect(_ stream: Stream, to target: Int32, childReads: Bool) throws(CannotStart) -> Int32? {
            switch stream {
            case .inherit: return nil
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return nil
            case .output:
                posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, target)
                return nil
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard makePipe(&ends, O_CLOEXEC) == 0 else { throw CannotStart(reason: String(cString: strerror(errno))) }
                let (child, parent) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
                // dup2 onto the standard stream clears close-on-exec there, and only there.
                posix_spawn_file_actions_adddup2(&actions, child, target)
                theirs.append(child)
                ours.append(parent)
                return parent
            }
        }
        do throws(CannotStart) {
            let inputEnd = try connect(standardInput, to: STDIN_FILENO, childReads: true)
            let outputEnd = try connect(standardOutput, to: STDOUT_FILENO, childReads: false)
            _ = try connect(standardError, to: STDERR_FILENO, childReads: false)
            // Descriptors this process opened without close-on-exec (a log, a cache file) stay here.
            if let closeFrom = SpawnCalls.addCloseFrom { _ = closeFrom(&actions, 3) }

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var defaults = sigset_t()
            sigfillset(&defaults)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
            if newSession {
                flags |= SpawnCalls.setSessionFlag
            } else if ownProcessGroup {
                posix_spawnattr_setpgroup(&attributes, 0)
                flags |= Int32(POSIX_SPAWN_SETPGROUP)
            }
            posix_spawnattr_setflags(&attributes, Int16(flags))
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let envp = Self.environment(with: environment).map { strdup($0) } + [nil]
            defer { envp.forEach { free($0) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            guard status == 0 else { throw CannotStart(reason: String(cString: strerror(status))) }
            self.pid = pid
            self.input = inputEnd.map(FileDescriptor.init(rawValue:))
            self.output = outputEnd.map(FileDescriptor.init(rawValue:))
        } catch {
            ours.forEach { _ = close($0) }
            throw error
        }
    }

    /// This process's environment as `NAME=value` strings, with `changes` applied.
    private static func environment(with changes: [String: String?]) -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if changes[name] == nil { entries.append(text) }
            pointer += 1
        }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { entries.append("\(name)=\(value)") }
        }
        return entries
    }

    /// Writes all of `bytes` to the child's standard input, then closes it; false if the child
    /// stopped reading (it ended, or closed its input) before it took them all.
    @discardableResult
    public func writeInputAndClose(_ bytes: [UInt8]) -> Bool {
        guard let input else { return false }
        defer { closeInput() }
        // A child that stops reading raises SIGPIPE on this thread: held back here (whatever the
        // process does with it elsewhere) and taken away again, so the write just fails with EPIPE.
        var pipeSignal = sigset_t()
        var previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        let written = (try? input.writeAll(bytes)) != nil
        if !written {
            var zero = timespec()
            while sigtimedwait(&pipeSignal, nil, &zero) == SIGPIPE {}
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        return written
    }

    /// Closes the child's standard input: it reads the end of it.
    public func closeInput() {
        try? input?.close()
        input = nil
    }

    /// Reads the child's output to its end (or until it closes it) and closes our end; past
    /// `limit` bytes the rest is read and dropped, keeping the last `limit` bytes.
    public func readOutputToEnd(keepingLast limit: Int = .max) -> [UInt8] {
        guard let output else { return [] }
        defer {
            try? output.close()
            self.output = nil
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while let count = try? chunk.withUnsafeMutableBytes({ try output.read(into: $0) }), count > 0 {
            bytes += chunk[..<count]
            if bytes.count > limit { bytes.removeFirst(bytes.count - limit) }
        }
        return bytes
    }

    /// Waits for the child to end and reaps it: its exit code, or 128+N when signal N ended it.
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard (try? Errno.retryingOnInterrupt({ waitpid(pid, &status, 0) })) != nil else { return -1 }
        return record(status)
    }

    /// The exit code if the child has ended (it is then reaped), nil while it runs.
    public func exitStatusIfEnded() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        return record(status)
    }

    /// Sends `signal` to the child, unless it has already been reaped.
    public func send(_ signal: Int32) {
        guard exitStatus == nil else { return }
        kill(pid, signal)
    }

    private func record(_ status: Int32) -> Int32 {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot call.
        let signal = status & 0x7F
        let code = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        exitStatus = code
        return code
    }

    deinit {
        try? input?.close()
        try? output?.close()
    }
}

/// glibc's `pipe2`, which its headers declare only under `_GNU_SOURCE`: a pipe whose ends are
/// close-on-exec from the start, so a program another thread starts meanwhile cannot inherit them.
@_silgen_name("pipe2")
private func makePipe(_ ends: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// What glibc has for `posix_spawn` that Swift's Glibc module does not declare (`_GNU_SOURCE`).
private enum SpawnCalls {
    /// `POSIX_SPAWN_SETSID` (glibc 2.26): the child calls `setsid`.
    static let setSessionFlag: Int32 = 0x80

    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34): close every descriptor from N up.
    static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
}
