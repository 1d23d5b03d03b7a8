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
    /// Send the body in a content coding.
    public var encoding: Encoding?
    /// Answer 206 Partial Content with these bytes of the body and their Content-Range, whatever
    /// the request asked for.
    public var partialContent: Range<Int>?
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

    /// A content coding for the body, and how the server misuses it.
    public struct Encoding: Sendable, Equatable {
        public enum Coding: String, Sendable, CaseIterable {
            case gzip
            /// zlib-wrapped deflate, as HTTP's `deflate` is meant to be.
            case deflate
            /// Deflate with no wrapper, which some servers send as `deflate`.
            case rawDeflate
            /// Brotli, in uncompressed meta-blocks (see `BrotliStored`).
            case brotli

            /// The Content-Encoding value.
            public var token: String {
                switch self {
                case .gzip: "gzip"
                case .deflate, .rawDeflate: "deflate"
                case .brotli: "br"
                }
            }
        }

        public var coding: Coding
        /// Encode even when the request's Accept-Encoding does not name the coding, as some servers do.
        public var evenIfNotAccepted: Bool
        /// Send only this many bytes of the encoded body, with a Content-Length that says exactly
        /// those: a stream cut short that HTTP's framing cannot see.
        public var cutAfter: Int?

        public init(_ coding: Coding, evenIfNotAccepted: Bool = false, cutAfter: Int? = nil) {
            self.coding = coding
            self.evenIfNotAccepted = evenIfNotAccepted
            self.cutAfter = cutAfter
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

    public static let gzipped: Fault = encoded(.gzip)

    /// The body in `coding` when the client accepts it (or, with `evenIfNotAccepted`, anyway),
    /// cut after `cutAfter` encoded bytes when given.
    public static func encoded(_ coding: Encoding.Coding, evenIfNotAccepted: Bool = false, cutAfter: Int? = nil) -> Fault {
        var fault = Fault()
        fault.encoding = Encoding(coding, evenIfNotAccepted: evenIfNotAccepted, cutAfter: cutAfter)
        return fault
    }

    /// A 206 with `range` of the body, to a request that asked for the whole.
    public static func partialContent(_ range: Range<Int>) -> Fault {
        var fault = Fault()
        fault.partialContent = range
        return fault
    }

    /// The resource as usual, with these headers added (or replacing the server's own).
    public static func headers(_ headers: [String: String]) -> Fault {
        var fault = Fault()
        fault.headers = headers
        return fault
    }

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
