import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One thing named on `imgview browse`'s command line, resolved: what its tabs come from.
public enum BrowseSource: Sendable, Equatable {
    /// An http(s) URL: one tab, whatever it turns out to hold.
    case url(URL)
    /// A catalog entry, named by its name.
    case catalogImage(AppImage)
    /// A local file named by its path: a tab if its bytes are an image.
    case file(URL)
    /// A local folder: the images in it (with `recursive`, in its subfolders too), in natural order.
    case folder(URL)

    /// Reads command-line arguments as `get` does — a URL, then an existing file or folder, then a
    /// catalog name — so that an error (an unknown name, a bad URL) is found before anything opens.
    ///
    /// - Parameter catalog: loaded only if an argument is neither a URL nor an existing path.
    public static func resolve(
        _ arguments: [String], currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        catalog: () async throws -> Catalog
    ) async throws -> [BrowseSource] {
        var sources: [BrowseSource] = []
        var loaded: Catalog?
        let base = URL(fileURLWithPath: currentDirectory.path, isDirectory: true)
        for argument in arguments {
            if let schemeEnd = argument.range(of: "://") {
                let scheme = argument[..<schemeEnd.lowerBound].lowercased()
                guard AppImage.allowedSchemes.contains(scheme), let url = URL(userText: argument),
                    scheme == "file" || !(url.host ?? "").isEmpty
                else { throw ImageReferenceError.invalidURL(argument) }
                sources.append(url.isFileURL ? try local(url.standardizedFileURL) : .url(url))
                continue
            }
            let path = URL(fileURLWithPath: argument, relativeTo: base).standardizedFileURL
            if let local = try? local(path) {
                sources.append(local)
                continue
            }
            if loaded == nil { loaded = try await catalog() }
            if let image = loaded?.image(named: argument) {
                sources.append(.catalogImage(image))
                continue
            }
            // Neither: say why the path failed if it exists at all (a permission), else that nothing has the name.
            if FileManager.default.fileExists(atPath: path.path) {
                sources.append(try local(path))
                continue
            }
            throw ImageReferenceError.unknown(argument, known: (loaded?.images ?? []).prefix(9).map(\.name))
        }
        return sources
    }

    /// A file or a folder at `url`; throws when nothing is there or it cannot be read.
    private static func local(_ url: URL) throws(ImagePipelineError) -> BrowseSource {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            throw errno == ENOENT ? .fileNotFound(url) : .fileUnreadable(url, reason: String(cString: strerror(errno)))
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            guard access(url.path, R_OK | X_OK) == 0 else { throw .fileUnreadable(url, reason: String(cString: strerror(errno))) }
            return .folder(url)
        }
        return .file(url)
    }
}
