import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Loads a catalog from its source: the built-in one, a JSON file, or paged JSON over http(s).
public struct CatalogLoader: Sendable {
    /// A catalog file larger than this is refused rather than read into memory.
    public static let maxCatalogBytes = 16 << 20
    /// A paged catalog with more pages than this is refused: probably a server that never ends.
    public static let maxPages = 1000

    private let fetcher: any CatalogFetching

    public init(fetcher: any CatalogFetching) {
        self.fetcher = fetcher
    }

    /// A loader that fetches remote pages with `loader`, the HTTP client the images use.
    public init(loader: any DataLoading) {
        self.init(fetcher: CatalogFetcher(loader: loader))
    }

    /// The catalog's first page (the whole catalog, unless it is remote and paged).
    public func loadFirstPage(from source: CatalogSource) async throws(CatalogError) -> Catalog {
        switch source {
        case .builtIn:
            return .builtIn
        case .file(let url):
            return try loadFile(url)
        case .remote(let url):
            return try await loadPage(url, origin: .remote(url))
        }
    }

    /// `catalog` with its next page appended, or unchanged if it has none.
    public func loadNextPage(of catalog: Catalog) async throws(CatalogError) -> Catalog {
        guard let next = catalog.next else { return catalog }
        let page = try await loadPage(next, origin: .remote(next))
        return try catalog.appending(page)
    }

    /// Every page of the catalog, following `next` until it ends.
    public func loadAll(from source: CatalogSource) async throws(CatalogError) -> Catalog {
        var catalog = try await loadFirstPage(from: source)
        var visited: Set<URL> = []
        if case .remote(let url) = source { visited.insert(url) }
        var pages = 1
        while let next = catalog.next {
            guard visited.insert(next).inserted else {
                throw CatalogError(origin: .remote(next), problem: .pagingLoop(next.absoluteString))
            }
            pages += 1
            guard pages <= Self.maxPages else {
                throw CatalogError(origin: catalog.origin, problem: .tooManyPages(Self.maxPages))
            }
            catalog = try await loadNextPage(of: catalog)
        }
        if catalog.images.isEmpty { throw CatalogError(origin: catalog.origin, problem: .empty) }
        return catalog
    }

    private func loadFile(_ url: URL) throws(CatalogError) -> Catalog {
        let origin = CatalogOrigin.file(url.path)
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if attributes[.type] as? FileAttributeType == .typeDirectory {
                // The user most likely wants the images in it: say how.
                throw CatalogError(
                    origin: origin,
                    problem: .unreadable("is a folder, not a catalog file (to browse the images in it: imgview \(url.path))"))
            }
            if let size = attributes[.size] as? Int, size > Self.maxCatalogBytes {
                throw CatalogError(origin: origin, problem: .tooLarge(Self.maxCatalogBytes))
            }
            data = try Data(contentsOf: url)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError(origin: origin, problem: .unreadable(Self.reason(error)))
        }
        return try CatalogParser(origin: origin, baseURL: url.deletingLastPathComponent()).parse(data)
    }

    private func loadPage(_ url: URL, origin: CatalogOrigin) async throws(CatalogError) -> Catalog {
        let data: Data
        do {
            data = try await fetcher.fetchCatalog(from: url, limit: Self.maxCatalogBytes)
        } catch {
            throw CatalogError(origin: origin, problem: .fetchFailed(Self.reason(error)))
        }
        return try CatalogParser(origin: origin, baseURL: url).parse(data)
    }

    private static func reason(_ error: any Error) -> String {
        if let fetchError = error as? CatalogFetchError { return fetchError.description }
        if let error = error as? CocoaError {
            if error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile { return "no such file" }
            if error.code == .fileReadNoPermission { return "permission denied" }
        }
        if let failure = error as? TransportError { return failure.reason }
        return TerminalText.sanitized(String(describing: error))
    }
}
