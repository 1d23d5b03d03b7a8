import Foundation
import Testing

/// A detached tmux server of its own, running one command in a pane of a given size: how the
/// browser is tested for real (keys in with `send-keys`, the screen out with `capture-pane`).
final class TmuxSession: @unchecked Sendable {
    let socket = "imgview-test-\(UUID().uuidString.prefix(8))"
    let name = "browser"

    /// Starts `command` (run by `sh -c`) in a `columns × rows` pane. The pane stays after the
    /// command ends, so what it left on the screen can be read.
    init(columns: Int = 120, rows: Int = 36, command: String, directory: URL? = nil) async throws {
        var arguments = ["new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)"]
        if let directory { arguments += ["-c", directory.path] }
        arguments += ["sh", "-c", command + "; echo \"EXIT=$?\"; stty -a | tr '\\n' ' '; echo; sleep 600"]
        let (status, output) = try await tmux(arguments)
        guard status == 0 else { throw TmuxError(message: "tmux new-session failed: \(output)") }
    }

    /// The shell command that runs the built imgview with `arguments` and `environment`.
    static func imgviewCommand(_ arguments: [String], environment: [String: String] = [:]) -> String {
        // No interactive backtrace prompt when a test crashes the binary on purpose.
        var env = [
            "TERM": "tmux-256color", "COLORTERM": "", "LANG": "C.UTF-8", "IMGVIEW_CATALOG": "", "NO_COLOR": "",
            "SWIFT_BACKTRACE": "interactive=no",
        ]
        for (key, value) in environment { env[key] = value }
        let assignments = env.sorted { $0.key < $1.key }.map { "\($0.key)=\(shellQuoted($0.value))" }
        return (["env"] + assignments + [shellQuoted(ImgviewProcess.binary.path)] + arguments.map(shellQuoted)).joined(separator: " ")
    }

    /// The pane's text now.
    func screen() async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", name]).output
    }

    /// The pane's text with its colours and attributes as escape sequences.
    func styledScreen() async throws -> String {
        try await tmux(["capture-pane", "-p", "-e", "-t", name]).output
    }

    /// Sends keys, as `tmux send-keys` names them (`Right`, `q`, `Escape`, `C-c`).
    func send(_ keys: String...) async throws {
        _ = try await tmux(["send-keys", "-t", name] + keys)
    }

    /// Runs `command` (by `sh -c`) in a window of its own, started by the tmux server, so with
    /// no signal blocked (a test thread's child inherits its blocked signals; gdb then hangs), and
    /// waits until it has ended.
    func runBeside(_ command: String, timeout: Duration = .seconds(60)) async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-beside-\(UUID().uuidString)").path
        defer { unlink(marker) }
        _ = try await tmux(["new-window", "-d", "-t", name, "sh -c \(Self.shellQuoted(command + "; touch " + Self.shellQuoted(marker)))"])
        let deadline = ContinuousClock.now + timeout
        while !FileManager.default.fileExists(atPath: marker), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func resize(columns: Int, rows: Int) async throws {
        _ = try await tmux(["resize-window", "-t", name, "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// A tmux format for the pane, such as `#{alternate_on}` or `#{pane_pid}`.
    func format(_ format: String) async throws -> String {
        try await tmux(["display-message", "-p", "-t", name, format]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pid of the imgview process in the pane (a child of the pane's shell).
    func imgviewPID() async throws -> Int32? {
        let shell = try await format("#{pane_pid}")
        let (_, output) = try await run("/usr/bin/pgrep", ["-P", shell, "-x", "imgview"])
        return output.split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// Waits until the screen satisfies `condition`; fails with the last screen after `timeout`.
    @discardableResult
    func waitForScreen(
        timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation, _ condition: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try await screen()
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the screen did not get there within \(timeout); it shows:\n\(last)", sourceLocation: sourceLocation)
        throw TmuxError(message: "timed out")
    }

    /// Runs a tmux command on this session's server (`set-option -s set-clipboard on`,
    /// `show-buffer`) and returns what it printed.
    @discardableResult
    func command(_ arguments: String...) async throws -> String {
        try await command(arguments)
    }

    @discardableResult
    func command(_ arguments: [String]) async throws -> String {
        let (status, output) = try await tmux(arguments)
        guard status == 0 else { throw TmuxError(message: "tmux \(arguments.joined(separator: " ")) failed: \(output)") }
        return output
    }

    func kill() async {
        _ = try? await tmux(["kill-server"])
    }

    private func tmux(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await run("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null"] + arguments)
    }

    /// Runs `executable` to completion and returns its exit status and output.
    ///
    /// posix_spawn and waitpid rather than Foundation's Process: `tmux new-session` forks the
    /// tmux server from its client, and Process on Linux then never noticed the client's exit.
    private func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await offPool {
            // A file, not a pipe: the tmux server would hold a pipe open for as long as it runs.
            let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-output-\(UUID().uuidString)").path
            defer { unlink(outputPath) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            // The calling thread has most signals blocked (threads libdispatch starts do), and a
            // child inherits that mask: a tmux server that cannot see SIGTERM ignores kill-server
            // and lives on with its browser. Start it with no signal blocked and default actions.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            var all = sigset_t()
            sigemptyset(&none)
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            guard spawned == 0 else { throw TmuxError(message: "cannot run \(executable): \(String(cString: strerror(spawned)))") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            return (exitStatus, output)
        }
    }

    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Whether tmux is installed (the set-up script installs it).
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }
}

struct TmuxError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
