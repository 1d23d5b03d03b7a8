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
    /// The decoded length of a body sent in a content coding, once the loader decoded it whole:
    /// it saw the coding's own end (see `ImgviewCompression.ContentDecoder`). Nil in the head a
    /// sink receives before the body, and from a loader that cannot check the coding.
    public var decodedLength: Int64?

    public init(status: Int, fields: HTTPFields, url: URL, expectedLength: Int64?, decodedLength: Int64? = nil) {
        self.status = status
        self.fields = fields
        self.url = url
        self.expectedLength = expectedLength
        self.decodedLength = decodedLength
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

    /// The body's length as it is received, when something vouches for it: Content-Length for a
    /// body sent as is; for a compressed one (loaders hand over the decoded bytes, whose count the
    /// server did not say) the decoded length once the loader saw its coding end.
    public var uncompressedLength: Int64? {
        isEncoded ? decodedLength : expectedLength
    }

    /// Whether the body was sent in a content coding (gzip, deflate, br…).
    public var isEncoded: Bool {
        guard let encoding = fields[.contentEncoding] else { return false }
        return encoding.split(separator: ",").contains { $0.trimmingSpaces().lowercased() != "identity" }
    }

    /// The body's length as Content-Length says, read strictly (RFC 9110 §8.6, RFC 9112 §6.3):
    /// nil when there is none, or when Transfer-Encoding frames the body instead.
    ///
    /// A value that is not digits, repeated values that differ, and a length past what any file can
    /// hold are refused: a client that guesses which one is meant, or reads such a body to the
    /// connection's end, may keep another message's bytes as this one's.
    public static func contentLength(in fields: HTTPFields) throws(TransportError) -> Int64? {
        let texts = fields[values: .contentLength].flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingSpaces() }
        guard let first = texts.first else { return nil }
        var length: Int64?
        for text in texts {
            guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw .badResponse("a Content-Length that is not a number: \"\(Self.shortened(text))\"")
            }
            guard let value = Int64(text) else {
                throw .badResponse("a Content-Length of \(Self.shortened(text)) bytes, more than any body can hold")
            }
            if let length, length != value {
                throw .badResponse("two different Content-Lengths, \(Self.shortened(first)) and \(Self.shortened(text))")
            }
            length = value
        }
        if fields[.transferEncoding] != nil { return nil }
        return length
    }

    private static func shortened(_ text: String) -> String {
        text.count > 40 ? text.prefix(40) + "…" : text
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
    /// `headers`, the user's, are put on `request` (which holds imgview's own fields) as
    /// `RequestHeaders.applied(to:)` puts them; redirects are followed as `RedirectPolicy` says,
    /// which keeps the `-H` fields at `request`'s origin. Only http and https are fetched, also
    /// after redirects. An HTTP error status is a head, not an error. Throws a `TransportError`,
    /// the sink's own error unchanged, or `CancellationError` when the calling task is cancelled
    /// (which also stops the transfer and closes its connection).
    func load(_ request: HTTPRequest, adding headers: RequestHeaders, into sink: any TransferSink) async throws -> ResponseHead
}

extension DataLoading {
    /// `request` with no header of the user's.
    public func load(_ request: HTTPRequest, into sink: any TransferSink) async throws -> ResponseHead {
        try await load(request, adding: RequestHeaders(), into: sink)
    }
}

extension HTTPRequest {
    /// A GET of `url` with `fields`; the loaders take the URL whole from `url`, not from its parts.
    public static func get(_ url: URL, fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .get, url: url, headerFields: fields)
    }
}
