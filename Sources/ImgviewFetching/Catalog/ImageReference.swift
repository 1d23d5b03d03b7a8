import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a user named on the command line: a catalog entry, a URL, or a local file.
public struct ImageReference: Sendable, Equatable {
    /// The catalog entry, when the argument was one's name.
    public let image: AppImage?
    public let url: URL

    public init(image: AppImage?, url: URL) {
        self.image = image
        self.url = url
    }

    /// Reads `argument`: an http(s) or file URL, an existing file, or a name in the catalog.
    ///
    /// An existing file wins over a catalog name, so a command pointed at a file never reads the
    /// catalog (a 100,000-entry one, or a remote one, costs seconds).
    ///
    /// - Parameter catalog: loaded only when the argument is neither a URL nor a file.
    public static func resolve(
        _ argument: String, currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        catalog: () async throws -> Catalog
    ) async throws -> ImageReference {
        if let scheme = argument.firstRange(of: "://").map({ argument[..<$0.lowerBound].lowercased() }) {
            guard ["http", "https", "file"].contains(scheme), let url = URL(userText: argument),
                scheme == "file" || !(url.host ?? "").isEmpty
            else { throw ImageReferenceError.invalidURL(argument) }
            return ImageReference(image: nil, url: url)
        }
        let file = CommandLineBytes.fileURL(for: argument, relativeTo: currentDirectory)
        if file.fileStatus() != nil { return ImageReference(image: nil, url: file) }
        let loaded = try await catalog()
        if let image = loaded.image(named: argument) {
            return ImageReference(image: image, url: image.url)
        }
        throw ImageReferenceError.unknown(argument, known: loaded.images.prefix(9).map(\.name))
    }
}

/// Why a command-line argument names no image.
public enum ImageReferenceError: Error, Equatable, Sendable {
    case invalidURL(String)
    case unknown(String, known: [String])
}

extension ImageReferenceError: UserFacingError {
    public var message: String {
        switch self {
        case .invalidURL(let text):
            "invalid URL \"\(TerminalText.sanitized(text))\" (use http, https or file)"
        case .unknown(let name, let known):
            "no image called \"\(TerminalText.sanitized(name))\" in the catalog and no such file"
                + " (known: \(known.prefix(8).joined(separator: ", "))\(known.count > 8 ? ", …" : ""); see 'imgview list')"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .invalidURL: .usage
        case .unknown: .notFound
        }
    }
}
