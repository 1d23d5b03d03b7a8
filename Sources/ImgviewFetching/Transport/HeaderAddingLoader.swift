import HTTPTypes

/// A loader that puts the user's header fields (`RequestHeaders`) on every request, then lets
/// `base` send it: images, catalogs and pages alike, through either HTTP client.
public struct HeaderAddingLoader: DataLoading {
    public let base: any DataLoading
    public let headers: RequestHeaders

    public init(_ base: any DataLoading, headers: RequestHeaders) {
        self.base = base
        self.headers = headers
    }

    public func load(_ request: HTTPRequest, into sink: any TransferSink) async throws -> ResponseHead {
        try await base.load(headers.applied(to: request), into: sink)
    }
}
