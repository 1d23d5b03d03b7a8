import Foundation
import ImgviewCore

// How a command-line argument (a path, a file:// or http(s) URL, or a catalog name) becomes
// bytes: local files are read straight into memory; http(s) goes through the ImageService
// pipeline and its caches, like `get`.

/// The bytes of the image a command was pointed at, and where they came from.
struct LoadedImage: Sendable {
    var bytes: [UInt8]
    /// The path or URL, unsanitised; sanitise before printing.
    var source: String
    var url: URL?
    /// Where the bytes came from: "file", or the pipeline's source ("network", "memory", "disk", "revalidated").
    var origin: String
    var cacheState: String
}

extension LoadedImage {
    /// The result of `decoding`; when it throws, a fetched body is removed from the disk cache first.
    ///
    /// Bytes the decoder refuses (corrupt, truncated before any pixel, too large) are not an image
    /// worth keeping: the next attempt fetches them again, in case the server has mended them.
    func droppedFromCacheOnFailure<T>(global: GlobalOptions, _ decoding: () throws -> T) throws -> T {
        do {
            return try decoding()
        } catch {
            if let url, !url.isFileURL, let cache = try? DiskCache(directory: global.cacheDirectoryURL) {
                try? cache.remove(url)
            }
            throw error
        }
    }
}

/// Reads or fetches the image named by `argument` (a URL, a catalog name or a file, as `get` reads it).
func loadImageBytes(_ argument: String, global: GlobalOptions, limits: ServiceOptions) async throws -> LoadedImage {
    let loader = try limits.makeLoader()
    let reference = try await ImageReference.resolve(argument) { try await global.loadCatalog(using: loader) }
    return try await load(reference.url, global: global, limits: limits, loader: loader)
}

private func load(_ url: URL, global: GlobalOptions, limits: ServiceOptions, loader: any DataLoading) async throws -> LoadedImage {
    if url.isFileURL { return try readFile(atPath: url.path) }
    let service = try limits.makeService(global: global, loader: loader)
    let response = try await service.image(for: ImageRequest(url: url))
    let data = try response.data()
    let cacheState: String
    if response.isCached {
        let until = ISO8601DateFormatter().string(from: response.entry.freshUntil)
        cacheState = response.entry.isFresh(at: Date()) ? "cached, fresh until \(until)" : "cached, stale since \(until)"
    } else {
        cacheState = "not cached"
    }
    return LoadedImage(
        bytes: [UInt8](data), source: url.absoluteString, url: url, origin: response.source.rawValue, cacheState: cacheState)
}

/// Reads a whole file straight into an array: no intermediate `Data` copy of a large photo.
private func readFile(atPath path: String) throws -> LoadedImage {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else {
        throw errno == ENOENT
            ? ImageArgumentError.unreadable(path, "no such file") : ImageArgumentError.unreadable(path, String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw ImageArgumentError.unreadable(path, String(cString: strerror(errno))) }
    guard status.st_mode & S_IFMT == S_IFREG else { throw ImageArgumentError.unreadable(path, "not a regular file") }
    let size = Int(status.st_size)
    guard size <= ImageArgumentError.maxFileBytes else { throw ImageArgumentError.fileTooLarge(path, size) }
    var failure: Int32 = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
        count = 0
        while count < size {
            let got = read(descriptor, buffer.baseAddress! + count, size - count)
            if got < 0, errno == EINTR { continue }
            if got < 0 { failure = errno; return }
            if got == 0 { return }  // the file shrank while we read it; take what is there
            count += got
        }
    }
    if failure != 0 { throw ImageArgumentError.unreadable(path, String(cString: strerror(failure))) }
    return LoadedImage(
        bytes: bytes, source: path, url: URL(fileURLWithPath: path), origin: "file", cacheState: "not cached")
}

/// Why an argument could not be turned into bytes.
enum ImageArgumentError: UserFacingError {
    /// Refuse files that could not be a sensible image before reading them into memory.
    static let maxFileBytes = 1 << 30

    case unreadable(String, String)
    case fileTooLarge(String, Int)

    var message: String {
        switch self {
        case .unreadable(let path, let reason):
            "\(TerminalText.sanitized(path)): cannot be read: \(reason)"
        case .fileTooLarge(let path, let size):
            "\(TerminalText.sanitized(path)): \(size) bytes is too large to be an image imgview can show"
        }
    }

    var exitStatus: ExitStatus {
        switch self {
        case .unreadable: .notFound
        case .fileTooLarge: .badImage
        }
    }
}
