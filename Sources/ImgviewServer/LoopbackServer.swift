import FlyingFox
import FlyingSocks
import Foundation
import ImgviewSupport

/// An HTTP server on 127.0.0.1 for `imgview serve`, `imgview demo` and the tests.
///
/// Paths are published at run time; each can be given faults for its next requests, and every
/// request is recorded, so a test can see exactly what reached the server.
public final class LoopbackServer: Sendable {
    /// The port it listens on (chosen by the system when started with port 0).
    public let port: UInt16
    /// Every request received.
    public let log: RequestLog

    private let server: HTTPServer
    private let routes: RouteTable
    private let runTask: Task<Void, Never>

    private init(port: UInt16, log: RequestLog, server: HTTPServer, routes: RouteTable, runTask: Task<Void, Never>) {
        self.port = port
        self.log = log
        self.server = server
        self.routes = routes
        self.runTask = runTask
    }

    /// Starts listening on 127.0.0.1:`port` (0 picks a free port) and returns once it accepts connections.
    public static func start(port: UInt16 = 0) async throws -> LoopbackServer {
        let log = RequestLog()
        let routes = RouteTable()
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: port),
            // Faults may hold a response for minutes; FlyingFox's 15 s default would answer 500 first.
            timeout: 3600,
            logger: .disabled,
            handler: FaultInjectingHandler(routes: routes, log: log))
        let failure = Locked<(any Error)?>(nil)
        let runTask = Task {
            do {
                try await server.run()
            } catch {
                failure.withLock { $0 = error }
            }
        }
        // run() throws at once when the port cannot be bound; otherwise it starts listening within milliseconds.
        let deadline = ContinuousClock.now + .seconds(10)
        while await !server.isListening {
            if let error = failure.withLock({ $0 }) { throw LoopbackServerError.cannotListen(port: port, reason: describe(error)) }
            guard ContinuousClock.now < deadline else {
                runTask.cancel()
                throw LoopbackServerError.cannotListen(port: port, reason: "timed out")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        guard case .ip4(_, let boundPort)? = await server.listeningAddress else {
            runTask.cancel()
            throw LoopbackServerError.cannotListen(port: port, reason: "no address")
        }
        return LoopbackServer(port: boundPort, log: log, server: server, routes: routes, runTask: runTask)
    }

    /// `http://127.0.0.1:PORT/`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// The absolute URL of `path` on this server.
    public func url(for path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Serves `resource` at `path` (which starts with `/`), with `faults` for its next requests.
    public func publish(_ resource: ServedResource, at path: String, faults: [Fault] = []) {
        routes.publish(resource, at: path, faults: faults)
    }

    /// Sets the faults for the next requests of `path`: request n gets `faults[n]`, the last one repeating.
    public func setFaults(_ faults: [Fault], for path: String) {
        routes.setFaults(faults, for: path)
    }

    /// Stops answering `path` (it becomes 404).
    public func remove(_ path: String) {
        routes.remove(path)
    }

    /// The requests received for `path`, or for every path.
    public func requests(for path: String? = nil) -> [RecordedRequest] {
        log.requests(for: path)
    }

    /// Closes the listening socket and every connection.
    public func stop() async {
        await server.stop(timeout: 0)
        runTask.cancel()
        await runTask.value
    }

    private static func describe(_ error: any Error) -> String {
        if let socketError = error as? SocketError, case .failed(_, let errno, let message) = socketError {
            return errno == EADDRINUSE ? "address in use" : message
        }
        return String(describing: error)
    }
}

/// Why the loopback server could not start.
public enum LoopbackServerError: Error, CustomStringConvertible {
    case cannotListen(port: UInt16, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let port, let reason): "cannot listen on 127.0.0.1:\(port): \(reason)"
        }
    }
}

extension LoopbackServerError: UserFacingError {
    public var message: String { description }
    public var exitStatus: ExitStatus { .network }
}
