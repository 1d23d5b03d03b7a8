#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where to read the catalog from, as given by `--catalog` or `IMGVIEW_CATALOG`.
public enum CatalogSource: Sendable, Equatable {
    case builtIn
    case file(URL)
    case remote(URL)

    /// Reads a `--catalog` value: an http(s) URL, a file:// URL or a path.
    public init(argument: String, currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) {
        if argument.contains("://"), let url = URL(userText: argument), let scheme = url.scheme?.lowercased() {
            switch scheme {
            case "http", "https":
                self = .remote(url)
                return
            case "file":
                self = .file(url.standardizedFileURL)
                return
            default:
                break
            }
        }
        self = .file(URL(fileURLWithPath: argument, relativeTo: currentDirectory).standardizedFileURL)
    }
}
