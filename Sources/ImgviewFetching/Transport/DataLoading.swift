import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The status line and header fields of an HTTP response.
public struct ResponseHead: Sendable, Equatable {
    public var status: Int
    public var fields: HTTPFields
    /// The URL the response came from, after redirects.
    public var url: URL
    /// Content-Length, when the server sent one (the compressed size for gzip bodies).
    public var expectedLength: Int64?

    public init(status: Int, fields: HTTPFields, url: URL, expectedLength: Int64?) {
        self.status = status
        self.fields = fields
        self.url = url
        self.expectedLength = expectedLength
    }

    /// A head from header lines as a server wrote them: a name that is not an HTTP token is
    /// dropped, and a value keeps every byte but line breaks and NULs (what it says is sanitised
    /// where it is shown, not here).
    public init(status: Int, headerLines: some Sequence<(name: String, value: String)>, url: URL, expectedLength: Int64?) {
        var fields = HTTPFields()
        for (name, value) in headerLines {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, lenientValue: Array(value.utf8)))
        }
        self.init(status: status, fields: fields, url: url, expectedLength: expectedLength)
    }

    /// The field's value, repeated fields joined with commas.
    public subscript(name: HTTPField.Name) -> String? { fields[name] }

    /// The body's length as it will be received: Content-Length, unless the body is compressed
    /// (loaders hand over the decoded bytes, whose count the server did not say).
    public var uncompressedLength: Int64? {
        let encoding = fields[.contentEncoding]?.trimmingSpaces().lowercased()
        return encoding == nil || encoding == "identity" ? expectedLength : nil
    }
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
/// The seam between the pipeline and the network. `ImgviewCurl.CurlDataLoader` is the live one and
/// `URLSessionDataLoader` the other; both pass `DataLoaderContractTests`. Core chooses neither: the
/// executable (or a test) always says which, since only it may link libcurl.
public protocol DataLoading: Sendable {
    /// Returns the final response's head once the whole body went into `sink`.
    ///
    /// Only http and https are fetched, also after redirects. An HTTP error status is a head, not an
    /// error. Throws a `TransportError`, the sink's own error unchanged, or `CancellationError` when
    /// the calling task is cancelled (which also stops the transfer and closes its connection).
    func load(_ request: HTTPRequest, into sink: any TransferSink) async throws -> ResponseHead
}

extension HTTPRequest {
    /// A GET of `url` with `fields`; the loaders take the URL whole from `url`, not from its parts.
    public static func get(_ url: URL, fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .get, url: url, headerFields: fields)
    }
}
