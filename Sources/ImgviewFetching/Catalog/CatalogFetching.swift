import HTTPTypes
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Fetches the bytes of a remote catalog page.
public protocol CatalogFetching: Sendable {
    /// The body of a successful (2xx) response, at most `limit` bytes.
    func fetchCatalog(from url: URL, limit: Int) async throws -> Data
}

/// Fetches catalog pages with the same `DataLoading` as the images, so one HTTP client (and its
/// connections) serves both; the size limit holds while the body streams, not after it arrived.
public struct CatalogFetcher: CatalogFetching {
    private let loader: any DataLoading

    public init(loader: any DataLoading) {
        self.loader = loader
    }

    public func fetchCatalog(from url: URL, limit: Int) async throws -> Data {
        let sink = CatalogSink(limit: limit)
        let head = try await loader.load(.get(url, fields: [.accept: "application/json", .userAgent: "imgview/0.1"]), into: sink)
        guard (200..<300).contains(head.status) else { throw CatalogFetchError(description: "HTTP \(head.status)") }
        return sink.body
    }
}

/// Gathers a catalog page, refusing it as soon as it is longer than the limit.
private final class CatalogSink: TransferSink, @unchecked Sendable {
    private let limit: Int
    private let lock = ThreadLock()
    private var isKeeping = false
    private var data = Data()

    init(limit: Int) {
        self.limit = limit
    }

    var body: Data { lock.withLock { data } }

    func receive(_ head: ResponseHead) throws {
        let keeping = (200..<300).contains(head.status)
        lock.withLock { isKeeping = keeping }
        if keeping, let length = head.uncompressedLength, length > limit { throw CatalogFetchError.tooLarge(limit) }
    }

    func receive(_ chunk: Data) throws {
        try chunk.withUnsafeBytes { try receive(bytes: $0) }
    }

    func receive(bytes chunk: UnsafeRawBufferPointer) throws {
        try lock.withLock {
            guard isKeeping else { return }
            guard data.count + chunk.count <= limit else { throw CatalogFetchError.tooLarge(limit) }
            data.append(contentsOf: chunk)
        }
    }
}

/// Why a remote catalog page could not be fetched.
public struct CatalogFetchError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(description: String) {
        self.description = description
    }

    static func tooLarge(_ limit: Int) -> CatalogFetchError {
        CatalogFetchError(description: "larger than \(limit) bytes")
    }
}
