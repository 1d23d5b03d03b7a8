import ImgviewFetching
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension GlobalOptions {
    /// The disk cache if one was ever created there; nil otherwise, so that looking creates nothing.
    ///
    /// `readOnly` opens it only to read (`ls`, `stats`), so a cache the user may not write still lists.
    func existingCache(readOnly: Bool = false) throws -> DiskCache? {
        let directory = cacheDirectoryURL
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("v1").path) else { return nil }
        return try DiskCache(directory: directory, sizeLimit: cacheSizeLimit(), readOnly: readOnly)
    }

    /// The catalog's names by URL, to label cache entries; a catalog that cannot be loaded only
    /// costs the labels (with a warning), since the cache is worth seeing without them.
    func catalogNamesByURL() async -> [URL: String] {
        do {
            let catalog = try await loadCatalog(using: try HTTPClient.makeLoader())
            return Dictionary(catalog.images.map { ($0.url, $0.name) }, uniquingKeysWith: { first, _ in first })
        } catch {
            let message = (error as? any UserFacingError)?.message ?? TerminalText.sanitized(String(describing: error))
            StandardError.print("imgview: warning: \(message); catalog names not shown")
            return [:]
        }
    }
}

/// Runs a cache operation, turning file-system failures (a lock or folder that cannot be used)
/// into the cache's exit code.
func withCacheErrors<T>(_ directory: URL, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as FileSystemError {
        throw DiskCacheError.unusable(directory.path, error.description)
    }
}
