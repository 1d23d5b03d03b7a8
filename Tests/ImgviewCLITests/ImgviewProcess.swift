import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

/// Runs the built `imgview` binary as a user would, and captures what it printed and how it exited.
struct ImgviewProcess {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// From the start of the process to its end.
        var elapsed: Duration = .zero
        /// stdout as bytes, for output that is not text (`get -o -`).
        var stdoutData = Data()
        /// stderr without trailing newline, for one-line error checks.
        var errorLine: String { stderr.trimmingCharacters(in: .newlines) }
    }

    /// `.build/<config>/imgview`, beside the test bundle that is running (or `$IMGVIEW_BIN`).
    static let binary: URL = {
        if let override = ProcessInfo.processInfo.environment["IMGVIEW_BIN"] { return URL(fileURLWithPath: override) }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        // On Linux the runner is `<products>/imgviewPackageTests.xctest`, a file beside the binary.
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("imgview")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        fatalError("imgview binary not found beside \(CommandLine.arguments[0]); set IMGVIEW_BIN")
    }()

    /// The repository's root, for the bundled assets.
    static let repositoryRoot = ImgviewTestSupport.repositoryRoot

    /// This process's environment without imgview's own variables (a cache of the test run's
    /// own instead) and without the crash reporter, with `overrides` applied.
    static func environment(_ overrides: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["IMGVIEW_CATALOG"] = nil
        env["IMGVIEW_OFFLINE"] = nil
        env["IMGVIEW_HTTP"] = nil
        env["NO_COLOR"] = nil
        // A crash ends in imgview's one line, not in the runtime's reporter: the reporter is a
        // process of its own that can outlive a child the test has given up on and keep its
        // pipes open, so the test (and the run) would wait for ever instead of failing.
        env["SWIFT_BACKTRACE"] = "enable=no"
        env["IMGVIEW_CACHE_DIR"] =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("imgview-cli-tests-\(ProcessInfo.processInfo.processIdentifier)").path
        for (key, value) in overrides { env[key] = value }
        return env
    }

    /// Starts `imgview` (or `executable`, a wrapper such as strace) with `arguments`, an isolated cache
    /// and no inherited catalog.
    static func start(
        _ arguments: [String], executable: URL = binary, environment: [String: String] = [:], directory: URL? = nil
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = Self.environment(environment)
        if let directory { process.currentDirectoryURL = directory }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, stdout, stderr)
    }

    /// Runs `imgview` to completion (killing it after `timeout`) and returns what it printed.
    static func run(
        _ arguments: [String], executable: URL = binary, environment: [String: String] = [:], directory: URL? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        let started = ContinuousClock.now
        let (process, stdout, stderr) = try start(arguments, executable: executable, environment: environment, directory: directory)
        // Read both pipes while the process runs, so a full pipe never blocks it.
        async let out = readToEnd(stdout)
        async let err = readToEnd(stderr)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                Issue.record("imgview \(arguments.joined(separator: " ")) did not finish within \(timeout)")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - started
        let output = await out
        return Result(
            status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: await err, as: UTF8.self), elapsed: elapsed, stdoutData: output)
    }
}

/// Everything `pipe` delivers until it closes, read on a thread of its own.
func readToEnd(_ pipe: Pipe) async -> Data {
    (try? await offPool { pipe.fileHandleForReading.readDataToEndOfFile() }) ?? Data()
}

/// Runs blocking `work` on a thread of its own.
///
/// Blocking calls must stay off Swift's cooperative pool and off Dispatch's global queues (on
/// Linux the pool runs on them, two threads wide here): the in-process loopback server that the
/// child process talks to needs those threads to answer.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// A fresh temporary folder, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("imgview-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `body`, then stops `server`, whether `body` threw or not.
func stopping(_ server: LoopbackServer, after body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// The HTTP clients the `imgview` under test was built with: libcurl always, URLSession with the
/// `URLSession` package trait (the binary and the tests are built in one invocation, alike).
enum HTTPClients {
    #if URLSession
        static let built = ["curl", "urlsession"]
    #else
        static let built = ["curl"]
    #endif
}
