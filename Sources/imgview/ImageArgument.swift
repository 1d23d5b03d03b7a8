import ImgviewFetching
import ImgviewPipeline

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// How a command-line argument (a path, a file:// or http(s) URL, a catalog name, or `-`) becomes the
// URL the preview pipeline reads: local files and http(s) alike go through it.

/// The URL of the image `argument` names (a URL, a catalog name or a file, as `get` reads it;
/// `-` is standard input, supplied to the pipeline by `SuppliedImageFetcher`). The catalog is
/// fetched only when the argument is a name.
func imageURL(for argument: String, global: GlobalOptions, catalog: CatalogOnce) async throws -> URL {
    if argument == "-" { return URL.standardInput }
    return try await ImageReference.resolve(argument) { try await catalog.value() }.url
}
