import ImgviewFetching

/// Loads the page after a paged catalog's last one, when the browser reaches its last tab.
public protocol CatalogPaging: Sendable {
    /// `catalog` with its next page appended.
    func loadNextPage(of catalog: Catalog) async throws(CatalogError) -> Catalog
}

extension CatalogLoader: CatalogPaging {}
