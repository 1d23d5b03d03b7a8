import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches the bytes of a remote catalog page.
public protocol CatalogFetching: Sendable {
    /// The body of a successful (2xx) response, at most `limit` bytes.
    func fetchCatalog(from url: URL, limit: Int) async throws -> Data
}

/// Fetches catalog pages with `URLSession`.
public struct CatalogFetcher: CatalogFetching {
    private let session: URLSession
    private let timeout: TimeInterval

    public init(session: URLSession = .shared, timeout: TimeInterval = 30) {
        self.session = session
        self.timeout = timeout
    }

    public func fetchCatalog(from url: URL, limit: Int) async throws -> Data {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw CatalogFetchError(description: "not an HTTP response")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw CatalogFetchError(description: "HTTP \(http.statusCode)")
        }
        guard data.count <= limit else { throw CatalogFetchError(description: "larger than \(limit) bytes") }
        return data
    }
}

/// Why a remote catalog page could not be fetched.
public struct CatalogFetchError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
