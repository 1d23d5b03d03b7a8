import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `imgview-server`, the loopback server behind `serve` and `demo`, as a program of its own.
///
/// The server (FlyingFox) needs all of Foundation; kept in a program of its own, only the two
/// commands that serve pay for it (DECISIONS.md, "A light binary"). It is found beside this
/// binary (a build folder, or `make install`'s `bin/`) or in `../libexec/imgview/`.
enum ServerProgram {
    struct NotFound: UserFacingError {
        let places: [String]
        var message: String {
            "imgview-server is missing (looked in \(places.map { TerminalText.sanitized($0) }.joined(separator: " and "))); build it with `swift build` or reinstall with `make install`"
        }
        var exitStatus: ExitStatus { .notFound }
    }

    struct CannotStart: UserFacingError {
        let reason: String
        var message: String { "imgview-server could not start: \(reason)" }
        var exitStatus: ExitStatus { .notFound }
    }

    /// The server program's path.
    static func path() throws -> String {
        let folder = URL(fileURLWithPath: executablePath()).deletingLastPathComponent()
        let places = [
            folder.appendingPathComponent("imgview-server").path,
            folder.deletingLastPathComponent().appendingPathComponent("libexec/imgview/imgview-server").path,
        ]
        guard let found = places.first(where: { access($0, X_OK) == 0 }) else { throw NotFound(places: places) }
        return found
    }

    /// This process's binary: `/proc/self/exe`, else the first argument.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Replaces this process with the server, run with `arguments`; returns only if that fails.
    static func replaceProcess(arguments: [String]) throws -> Never {
        let program = try path()
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, argv)
        throw CannotStart(reason: String(cString: strerror(errno)))
    }

    /// A server started beside this process, with a pipe to its standard input and from its output.
    final class Child {
        private let process: ChildProcess
        private var buffered: [UInt8] = []
        private var stopped = false

        /// Starts the server with `arguments`, in a process group of its own (Ctrl-C on the
        /// terminal is the browser's to handle, not the server's); its stderr is this one's.
        init(arguments: [String]) throws {
            do {
                process = try ChildProcess(
                    path: try ServerProgram.path(), arguments: arguments, standardInput: .pipe, standardOutput: .pipe,
                    ownProcessGroup: true)
            } catch let error as ChildProcess.CannotStart {
                throw CannotStart(reason: error.reason)
            }
        }

        /// The next line the server prints, without its newline; nil once its output ends.
        func readLine() -> String? {
            guard let output = process.output else { return nil }
            while true {
                if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffered[..<newline], as: UTF8.self)
                    buffered.removeSubrange(...newline)
                    return line
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = (try? chunk.withUnsafeMutableBytes { try output.read(into: $0) }) ?? 0
                guard count > 0 else {
                    defer { buffered = [] }
                    return buffered.isEmpty ? nil : String(decoding: buffered, as: UTF8.self)
                }
                buffered += chunk[..<count]
            }
        }

        /// Ends the server: closes its input (it stops and prints the path of every request it
        /// received), reads those lines until it exits, and reaps it. Once; `deinit` does it too.
        @discardableResult
        func stop() -> [String] {
            guard !stopped else { return [] }
            stopped = true
            process.closeInput()
            var lines: [String] = []
            while let line = readLine() { lines.append(line) }
            process.wait()
            return lines
        }

        deinit {
            stop()
        }
    }
}
