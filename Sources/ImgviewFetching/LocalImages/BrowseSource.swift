import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// catalog name — before anything opens.
    ///
    /// An argument that names nothing (no such path, no such catalog name), a path that cannot be
    /// read, and a file named on its own that is not an image are left out and reported, so that
    /// the browser opens over the rest; an invalid URL is an error of the whole command line.
    ///
    /// - Parameter catalog: loaded only if an argument is neither a URL nor an existing path.
    public static func resolve(
        _ arguments: [String], currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        catalog: () async throws -> Catalog
    ) async throws -> BrowseArguments {
        var resolved = BrowseArguments()
        var loaded: Catalog?
        let base = URL(fileURLWithPath: currentDirectory.path, isDirectory: true)
        for argument in arguments {
            func leaveOut(_ reason: LeftOutArgument.Reason, _ error: any UserFacingError & Sendable) {
                resolved.leftOut.append(LeftOutArgument(argument: argument, reason: reason, error: error))
            }
            if let schemeEnd = argument.firstRange(of: "://") {
                let scheme = argument[..<schemeEnd.lowerBound].lowercased()
                guard AppImage.allowedSchemes.contains(scheme), let url = URL(userText: argument),
                    scheme == "file" || !(url.host ?? "").isEmpty
                else { throw ImageReferenceError.invalidURL(argument) }
                guard url.isFileURL else {
                    resolved.sources.append(.url(url))
                    continue
                }
                do {
                    resolved.sources.append(try namedLocal(url.standardizedFileURL))
                } catch {
                    leaveOut(error.leftOutReason, error)
                }
                continue
            }
            let path = CommandLineBytes.fileURL(for: argument, relativeTo: base)
            if let local = try? namedLocal(path) {
                resolved.sources.append(local)
                continue
            }
            // Neither an image nor a folder at that path: a catalog name, or why the path failed.
            if path.fileStatus() == nil {
                if loaded == nil { loaded = try await catalog() }
                if let image = loaded?.image(named: argument) {
                    resolved.sources.append(.catalogImage(image))
                    continue
                }
            }
            do {
                resolved.sources.append(try namedLocal(path))
            } catch .fileNotFound {
                leaveOut(.notFound, ImageReferenceError.unknown(argument, known: (loaded?.images ?? []).prefix(9).map(\.name)))
            } catch {
                leaveOut(error.leftOutReason, error)
            }
        }
        return resolved
    }

    /// A folder, or a file whose bytes are an image's, named on the command line: a named file that
    /// is not an image is an error of its own, where one in a folder is only passed over.
    private static func namedLocal(_ url: URL) throws(ImagePipelineError) -> BrowseSource {
        let source = try local(url)
        if case .file = source {
            guard url.fileStatus().map({ $0.st_mode & S_IFMT == S_IFREG }) == true, ImageListing.startsWithImageSignature(url) else {
                throw .notAnImage(url, contentType: nil)
            }
        }
        return source
    }

    /// A file or a folder at `url`; throws when nothing is there or it cannot be read.
    private static func local(_ url: URL) throws(ImagePipelineError) -> BrowseSource {
        guard let status = url.fileStatus() else {
            throw errno == ENOENT ? .fileNotFound(url) : .fileUnreadable(url, reason: String(cString: strerror(errno)))
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            guard url.withFilePath({ access($0, R_OK | X_OK) }) == 0 else {
                throw .fileUnreadable(url, reason: String(cString: strerror(errno)))
            }
            return .folder(url)
        }
        return .file(url)
    }
}

/// What `imgview browse` was given, resolved: the sources it opens over, and what it left out.
public struct BrowseArguments: Sendable, Equatable {
    public var sources: [BrowseSource] = []
    public var leftOut: [LeftOutArgument] = []

    public init(sources: [BrowseSource] = [], leftOut: [LeftOutArgument] = []) {
        self.sources = sources
        self.leftOut = leftOut
    }
}

/// An argument the browser opens without, and why.
public struct LeftOutArgument: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// No such file, folder or catalog name.
        case notFound
        /// A file named on its own whose bytes are not an image's.
        case notAnImage
        /// There, but it cannot be read (a permission, say).
        case unreadable
    }

    /// As the user typed it.
    public let argument: String
    public let reason: Reason
    /// The error it is when nothing else is left to open.
    public let error: any UserFacingError & Sendable

    public static func == (lhs: LeftOutArgument, rhs: LeftOutArgument) -> Bool {
        lhs.argument == rhs.argument && lhs.reason == rhs.reason && lhs.error.message == rhs.error.message
    }
}

extension ImagePipelineError {
    fileprivate var leftOutReason: LeftOutArgument.Reason {
        switch self {
        case .fileNotFound: .notFound
        case .notAnImage: .notAnImage
        default: .unreadable
        }
    }
}

extension BrowseSource {
    /// The images of `page` as the browser's tabs, titled by their `alt` text, in page order.
    public static func images(of page: WebPage) -> [BrowseSource] {
        page.images.map { .catalogImage(AppImage(name: ImageListing.tabName(for: $0.url), title: $0.title, url: $0.url)) }
    }
}
