import Dispatch
import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The user's own command for the images, as nsxiv's key-handler: the prefix key, then a key,
/// runs `$XDG_CONFIG_HOME/imgview/key-handler KEY` with the images' paths on standard input.
///
/// It runs beside the browser, which keeps the screen: its standard output and error are read
/// and the last line shown in the status line. It is in a process group of its own, so it cannot
/// read the terminal's keys (trying stops it) or get the terminal's signals.
public struct KeyHandler: Sendable {
    /// How much of what the script prints is kept (the last of it).
    public static let outputLimit = 65_536

    /// Where the script is, whether or not it exists.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// `$XDG_CONFIG_HOME/imgview/key-handler`, else `~/.config/imgview/key-handler`.
    public init(environment: [String: String]) {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
        self.init(path: (config ?? (home == "/" ? "" : home) + "/.config") + "/imgview/key-handler")
    }

    /// What a run came to.
    public struct Outcome: Sendable, Equatable {
        /// The exit code, 128+N when signal N ended it.
        public var status: Int32
        /// The last line it printed that is not blank, made safe for the status line.
        public var lastLine: String?
    }

    /// Why it could not run.
    public struct Failure: Error, Sendable, Equatable {
        public var message: String
    }

    /// Whether there is a script to run.
    public var exists: Bool {
        access(path, X_OK) == 0
    }

    /// Runs the script with `key` (as `BrowserKey.name` spells it) and `paths`, one per line, on
    /// its standard input; returns when it has ended. `IMGVIEW_KEY` is the key too.
    public func run(key: String, paths: [String]) async -> Result<Outcome, Failure> {
        let path = path
        guard access(path, F_OK) == 0 else { return .failure(Failure(message: "no key-handler: write an executable script at \(path)")) }
        guard access(path, X_OK) == 0 else { return .failure(Failure(message: "the key-handler \(path) is not executable (chmod +x)")) }
        let input = Array(paths.map { $0 + "\n" }.joined().utf8)
        return await withCheckedContinuation { continuation in
            // Queues of their own: the script may run long, and blocks only them.
            DispatchQueue(label: "imgview.key-handler", qos: .userInitiated).async {
                let child: ChildProcess
                do throws(ChildProcess.CannotStart) {
                    child = try ChildProcess(
                        path: path, arguments: [key], environment: ["IMGVIEW_KEY": key], standardInput: .pipe, standardOutput: .pipe,
                        standardError: .output, ownProcessGroup: true)
                } catch {
                    continuation.resume(returning: .failure(Failure(message: "cannot run the key-handler: \(error.reason)")))
                    return
                }
                // Its input on another thread: a script that prints before it reads must not wait on us.
                let box = UncheckedBox(child)
                let fed = DispatchSemaphore(value: 0)
                DispatchQueue(label: "imgview.key-handler-input", qos: .userInitiated).async {
                    box.value.writeInputAndClose(input)
                    fed.signal()
                }
                let output = child.readOutputToEnd(keepingLast: Self.outputLimit)
                fed.wait()
                let status = child.wait()
                continuation.resume(returning: .success(Outcome(status: status, lastLine: Self.lastLine(of: output))))
            }
        }
    }

    /// The last line of `output` that is not blank, made safe to print.
    static func lastLine(of output: [UInt8]) -> String? {
        let text = String(decoding: output, as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) }
        return line.map { TerminalText.sanitized(String($0)) }
    }
}
