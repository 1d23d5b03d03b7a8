import Foundation
import ImgviewProcess
import ImgviewServer
import ImgviewSupport
import SystemPackage

/// `imgview-server`: the loopback server behind `imgview serve` and `imgview demo`, as a program.
///
/// FlyingFox needs all of Foundation (and so ICU); kept out of the `imgview` binary, it is paid
/// for only by the two commands that serve (DECISIONS.md, "A light binary"). `imgview serve`
/// replaces itself with this program; `imgview demo` starts it beside the browser and stops it.
/// Messages say `imgview:`, since that is the command the user typed.
///
///     imgview-server serve DIR [--port N]
///         Publishes DIR's images and a catalog of them, prints the catalog, and serves until a
///         request to end (Ctrl-C, SIGTERM, Ctrl-\\, …), which stops it cleanly.
///     imgview-server demo ASSETS
///         Publishes ASSETS/images and ASSETS/demo-catalog.json, prints the catalog's URL, and
///         serves until standard input ends (then prints the path of every request received,
///         one a line) or a signal comes. Standard input is a pipe from the `imgview` that
///         started it, so it ends however that process ends, a crash or `kill -9` included.
@main
enum ImgviewServerProgram {
    static func main() async {
        // The same handler as every imgview command: requests to end stop the server; a crash is
        // one line, not the runtime's report.
        ProcessSignals.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            switch arguments.first {
            case "serve":
                let (directory, port) = try serveArguments(Array(arguments.dropFirst()))
                try await serve(directory: directory, port: port)
            case "demo" where arguments.count == 2:
                try await demo(assets: URL(fileURLWithPath: arguments[1]))
            default:
                throw Usage()
            }
        } catch let error as any UserFacingError {
            printError("imgview: \(error.message)")
            exit(error.exitStatus.rawValue)
        } catch {
            printError("imgview: \(error)")
            exit(1)
        }
        exit(0)
    }

    struct Usage: UserFacingError {
        var message: String { "usage: imgview-server serve DIR [--port N] | imgview-server demo ASSETS" }
        var exitStatus: ExitStatus { .usage }
    }

    static func serveArguments(_ arguments: [String]) throws -> (String, UInt16) {
        var directory: String?
        var port: UInt16 = 0
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--port", let value = rest.popFirst(), let number = UInt16(value) {
                port = number
            } else if directory == nil, argument != "--port" {
                directory = argument
            } else {
                throw Usage()
            }
        }
        return (directory ?? ".", port)
    }

    static func serve(directory: String, port: UInt16) async throws {
        let folder = try ImageFolder(directory: URL(fileURLWithPath: directory).standardizedFileURL)
        let stop = StopSignal()
        let server = try await LoopbackServer.start(port: port)
        let catalog = server.serve(folder)
        write(catalog.jsonData() + Data("\n".utf8), to: STDOUT_FILENO)
        let count = folder.entries.count
        printError(
            "imgview: serving \(count) image\(count == 1 ? "" : "s") from \(TerminalText.sanitized(folder.directory.path)) at \(server.url(for: "/catalog.json").absoluteString) (Ctrl-C stops)"
        )
        let number = await stop.wait()
        await server.stop()
        let reason = number == SIGINT ? "interrupt" : number == SIGTERM ? "terminate" : number.map { "signal \($0)" } ?? "end of input"
        printError("imgview: stopped (\(reason))")
    }

    static func demo(assets: URL) async throws {
        let stop = StopSignal(orEndOfStandardInput: true)
        let server = try await LoopbackServer.start()
        server.serve(try ImageFolder(directory: assets.appendingPathComponent("images")))
        let catalog = try Data(contentsOf: assets.appendingPathComponent("demo-catalog.json"))
        server.publish(.data(catalog, contentType: "application/json"), at: "/demo-catalog.json")
        write(Data("\(server.url(for: "/demo-catalog.json").absoluteString)\n".utf8), to: STDOUT_FILENO)
        let number = await stop.wait()
        await server.stop()
        if number == nil {
            let paths = server.requests().map { $0.path + "\n" }.joined()
            write(Data(paths.utf8), to: STDOUT_FILENO)
        }
    }

    static func printError(_ line: String) {
        write(Data((TerminalText.sanitized(line) + "\n").utf8), to: STDERR_FILENO)
    }

    static func write(_ data: Data, to descriptor: Int32) {
        _ = try? FileDescriptor(rawValue: descriptor).writeAll(data)
    }
}

/// The first request to end (through `ProcessSignals`, as every imgview command has it), or the
/// end of standard input: what stops the server.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var observation: SignalObservation?
    private var continuation: CheckedContinuation<Int32?, Never>?
    private var outcome: Int32??

    init(orEndOfStandardInput: Bool = false) {
        observation = ProcessSignals.onTermination { [weak self] number in self?.finish(number) }
        if orEndOfStandardInput {
            Thread.detachNewThread { [weak self] in
                var buffer = [UInt8](repeating: 0, count: 512)
                while let count = try? buffer.withUnsafeMutableBytes({ try FileDescriptor.standardInput.read(into: $0) }), count > 0 {}
                self?.finish(nil)
            }
        }
    }

    /// The signal that came, or nil for the end of standard input.
    func wait() async -> Int32? {
        await withCheckedContinuation { continuation in
            let ready: Int32?? = lock.withLock {
                if let outcome { return outcome }
                self.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func finish(_ number: Int32?) {
        let waiting: CheckedContinuation<Int32?, Never>? = lock.withLock {
            guard outcome == nil else { return nil }
            outcome = .some(number)
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: number)
    }
}
