import Foundation

/// How the loopback server misbehaves for one request, so tests can reproduce what real servers do.
///
/// The default value is a well-behaved server. Each property turns on one fault; they combine.
public struct Fault: Sendable, Equatable {
    /// Where a redirect points and with which status.
    public struct Redirect: Sendable, Equatable {
        public var status: Int
        public var location: String
        public init(status: Int = 302, location: String) {
            self.status = status
            self.location = location
        }
    }

    /// Wait this long before sending the status line and headers.
    public var delayBeforeHeaders: Duration = .zero
    /// Answer with this status and a short text body instead of the resource.
    public var status: Int?
    /// Extra headers, sent as given (they replace the server's own of the same name).
    public var headers: [String: String] = [:]
    /// Send the body in chunks of this many bytes…
    public var chunkSize: Int = 64 * 1024
    /// …waiting this long before each chunk (a slow body).
    public var delayPerChunk: Duration = .zero
    /// Stop sending once this many bytes of the body are out, until the gate opens.
    public var hold: Hold?
    /// Declare the full Content-Length, send only this many bytes, then close the connection.
    public var truncateAfter: Int?
    /// Answer with a redirect instead of the resource.
    public var redirect: Redirect?
    /// gzip the body (Content-Encoding: gzip) when the client accepts it.
    public var gzip: Bool = false
    /// Answer conditional requests with 304 when the validators match.
    public var honoursConditionalRequests: Bool = true
    /// Answer `Range: bytes=N-` with 206 (after `If-Range`) and say `Accept-Ranges: bytes`; off,
    /// the server ignores ranges and sends every body whole, as many do.
    public var honoursRanges: Bool = true
    /// Send the range asked for even when `If-Range` names another version: a broken server that
    /// splices, which the client must notice by the validators of the 206.
    public var ignoresIfRange: Bool = false
    /// Send these bytes instead of the resource's (a body that is not an image, say).
    public var replacementBody: Data?
    /// Send this Content-Type instead of the resource's.
    public var contentType: String?

    /// Where a body stops, and what lets it go on.
    public struct Hold: Sendable, Equatable {
        public var after: Int
        public var gate: BodyGate
        public init(after: Int, gate: BodyGate) {
            self.after = after
            self.gate = gate
        }
    }

    public init() {}

    /// A well-behaved server.
    public static let none = Fault()

    public static func delay(_ delay: Duration) -> Fault {
        var fault = Fault()
        fault.delayBeforeHeaders = delay
        return fault
    }

    public static func status(_ code: Int, headers: [String: String] = [:]) -> Fault {
        var fault = Fault()
        fault.status = code
        fault.headers = headers
        return fault
    }

    public static func slowBody(chunkSize: Int, delayPerChunk: Duration) -> Fault {
        var fault = Fault()
        fault.chunkSize = chunkSize
        fault.delayPerChunk = delayPerChunk
        return fault
    }

    /// A slow body that stops after `bytes` until `gate` opens.
    public static func held(after bytes: Int, until gate: BodyGate, chunkSize: Int, delayPerChunk: Duration) -> Fault {
        var fault = slowBody(chunkSize: chunkSize, delayPerChunk: delayPerChunk)
        fault.hold = Hold(after: bytes, gate: gate)
        return fault
    }

    public static func truncated(after bytes: Int) -> Fault {
        var fault = Fault()
        fault.truncateAfter = bytes
        return fault
    }

    public static func redirect(to location: String, status: Int = 302) -> Fault {
        var fault = Fault()
        fault.redirect = Redirect(status: status, location: location)
        return fault
    }

    /// A server that knows nothing of ranges: no `Accept-Ranges`, every body whole.
    public static let noRanges: Fault = {
        var fault = Fault()
        fault.honoursRanges = false
        return fault
    }()

    public static let gzipped: Fault = {
        var fault = Fault()
        fault.gzip = true
        return fault
    }()

    public static func body(_ data: Data, contentType: String? = nil) -> Fault {
        var fault = Fault()
        fault.replacementBody = data
        fault.contentType = contentType
        return fault
    }

    public static func contentType(_ type: String) -> Fault {
        var fault = Fault()
        fault.contentType = type
        return fault
    }
}
