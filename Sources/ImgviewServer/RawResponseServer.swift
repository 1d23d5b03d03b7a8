import Foundation
import ImgviewSupport
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A bare HTTP/1.1 server on 127.0.0.1 that answers each request with bytes given verbatim, then
/// closes the connection.
///
/// For what `LoopbackServer` (FlyingFox) will not send: a body without Content-Length or chunked
/// framing, whose end is the connection closing, whether the whole image was sent or not. One
/// thread accepts and answers connections one at a time; an unknown path gets a 404.
public final class RawResponseServer: Sendable {
    /// The port it listens on, chosen by the system.
    public let port: UInt16
    private let listener: Int32
    private let routes = Locked<[String: Data]>([:])
    private let log = Locked<[String]>([])
    private let stopped = Locked(false)

    /// Starts listening and answering on a free port.
    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw FileSystemError(operation: "open a socket", path: "127.0.0.1", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(listener)
            throw FileSystemError(operation: "listen on", path: "127.0.0.1", errno: code)
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "imgview.raw-response-server"
        thread.start()
    }

    /// The absolute URL of `path` on this server.
    public func url(for path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Answers requests for `path` with `response`: a status line, headers, a blank line and a body.
    public func respond(at path: String, with response: Data) {
        routes.withLock { $0[path] = response }
    }

    /// Answers `path` with a 200 whose body is the first `sent` bytes of `body` (all of them when
    /// nil), with no Content-Length: the body ends where the connection is closed.
    public func respondCloseDelimited(at path: String, body: Data, sent: Int? = nil, contentType: String = "image/jpeg") {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nConnection: close\r\n\r\n"
        respond(at: path, with: Data(head.utf8) + body.prefix(sent ?? body.count))
    }

    /// How many requests `path` received.
    public func requestCount(for path: String) -> Int {
        log.withLock { $0.filter { $0 == path }.count }
    }

    /// Stops listening; a connection being answered is finished first.
    public func stop() {
        guard
            !stopped.withLock({ stopped in
                defer { stopped = true }; return stopped
            })
        else { return }
        // Wakes the accept loop, which closes the socket itself: closed here, its number could go
        // to the next server's socket before the loop's last `accept`, and this server would then
        // answer that one's requests.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        stop()
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            guard let connection = try? Errno.retryingOnInterrupt({ accept(listener, nil, nil) }) else { return }
            if stopped.withLock({ $0 }) {
                close(connection)
                return
            }
            answer(connection)
            close(connection)
        }
    }

    private func answer(_ connection: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let got = recv(connection, &buffer, buffer.count, 0)
            guard got > 0 else { return }
            request += buffer[0..<got]
        }
        let line = String(decoding: request.prefix { $0 != 0x0D }, as: UTF8.self).split(separator: " ")
        let path = line.count > 1 ? String(line[1]) : "/"
        log.withLock { $0.append(path) }
        let response = routes.withLock { $0[path] } ?? Data("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
        response.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(connection, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return }
                offset += sent
            }
        }
        // Everything is written; closing now is the end of the body.
        shutdown(connection, Int32(SHUT_WR))
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        return (0...(count - 4)).contains { self[$0] == 0x0D && self[$0 + 1] == 0x0A && self[$0 + 2] == 0x0D && self[$0 + 3] == 0x0A }
    }
}
