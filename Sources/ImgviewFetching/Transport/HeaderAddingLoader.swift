import HTTPTypes

/// A loader that puts the user's header fields (`RequestHeaders`) on every request, then lets
/// `base` send it: images, catalogs and pages alike, through either HTTP client, which keeps the
/// `-H` fields at each request's origin through redirects (`RedirectPolicy`).
public struct HeaderAddingLoader: DataLoading {
    public let base: any DataLoading
    public let headers: RequestHeaders

    public init(_ base: any DataLoading, headers: RequestHeaders) {
        self.base = base
        self.headers = headers
    }

    public func load(_ request: HTTPRequest, adding headers: RequestHeaders, into sink: any TransferSink) async throws -> ResponseHead {
        try await base.load(request, adding: self.headers.adding(headers), into: sink)
    }
}
