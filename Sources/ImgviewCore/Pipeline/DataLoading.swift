import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The status line and headers of an HTTP response.
public struct ResponseHead: Sendable, Equatable {
    public var status: Int
    /// Header values by lower-case name.
    public var headers: [String: String]
    /// The URL the response came from, after redirects.
    public var url: URL
    /// Content-Length, when the server sent one (the compressed size for gzip bodies).
    public var expectedLength: Int64?

    public init(status: Int, headers: [String: String], url: URL, expectedLength: Int64?) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.url = url
        self.expectedLength = expectedLength
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body's length as it will be received: Content-Length, unless the body is compressed
    /// (URLSession hands over the decompressed bytes, whose count the server did not say).
    public var uncompressedLength: Int64? { header("content-encoding") == nil ? expectedLength : nil }
}

/// Receives a response as it arrives; throwing from either method aborts the transfer with that error.
public protocol TransferSink: AnyObject, Sendable {
    func receive(_ head: ResponseHead) throws
    func receive(_ chunk: Data) throws
    /// The same as `receive(_ chunk: Data)` for bytes that are valid only during the call, from a
    /// loader that owns its buffers; saves a copy per chunk.
    func receive(bytes chunk: UnsafeRawBufferPointer) throws
}

extension TransferSink {
    public func receive(bytes chunk: UnsafeRawBufferPointer) throws {
        try receive(Data(chunk))
    }
}

/// Sends a request and streams the response body into a sink.
///
/// The seam between the pipeline and the network: `URLSessionDataLoader` is the live one.
public protocol DataLoading: Sendable {
    /// Returns the response head once the whole body went into `sink`.
    ///
    /// Throws `URLError`, the sink's error, or `CancellationError` when the calling task is cancelled
    /// (which also stops the transfer).
    func load(_ request: URLRequest, into sink: any TransferSink) async throws -> ResponseHead
}
