import Foundation

/// One request the loopback server received, and how its response ended.
public struct RecordedRequest: Sendable, Equatable {
    /// How sending the response ended.
    public enum Outcome: Sendable, Equatable {
        /// Still being answered.
        case inProgress
        /// The whole response was sent.
        case completed
        /// The client went away (or a fault cut the body) before the response was whole.
        case aborted
    }

    /// Order of arrival, from 0.
    public let sequence: Int
    public let method: String
    public let path: String
    /// Header names in lower case.
    public let headers: [String: String]
    /// The client's port: requests with the same one came over the same (kept-alive) connection.
    public var connection: UInt16?
    public var status: Int?
    /// Bytes of the resource's body handed to the socket (a short status text does not count; a
    /// range counts the bytes of the range).
    public var bodyBytesSent: Int = 0
    public var outcome: Outcome = .inProgress

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
