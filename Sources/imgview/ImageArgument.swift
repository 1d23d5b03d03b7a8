import Foundation
import ImgviewCore

// How a command-line argument (a path, a file:// or http(s) URL, or a catalog name) becomes the
// URL the preview pipeline reads: local files and http(s) alike go through it.

/// The URL of the image `argument` names (a URL, a catalog name or a file, as `get` reads it); the
/// catalog is fetched with `loader`, and only when the argument is a name.
func imageURL(for argument: String, global: GlobalOptions, loader: any DataLoading) async throws -> URL {
    try await ImageReference.resolve(argument) { try await global.loadCatalog(using: loader) }.url
}
