import ImgviewFetching
import ImgviewImaging
import ImgviewPipeline
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The files that actions needing one (open, the key-handler) are given: a local image's own
/// path; a remote image's bytes, through the caches, written whole into a private folder of this
/// user's (`$XDG_RUNTIME_DIR/imgview`, else `/tmp/imgview-UID`), never a path inside the cache.
public struct ActionFiles: Sendable {
    public let pipeline: ImagePipeline
    /// Where copies of remote images go.
    public let folder: String

    public init(pipeline: ImagePipeline, folder: String) {
        self.pipeline = pipeline
        self.folder = folder
    }

    /// `$XDG_RUNTIME_DIR/imgview`, else `/tmp/imgview-UID`.
    public static func defaultFolder(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/imgview" }
        return "/tmp/imgview-\(getuid())"
    }

    /// A path with `image`'s bytes: its own for a local file, else a copy fetched through the caches.
    public func path(for image: AppImage) async throws -> String {
        let url = image.url
        if url.isFileURL { return url.path }
        let response = try await pipeline.bytes(for: ImageRequest(url: url))
        let name = ImageSaver.fileName(for: image, format: response.entry.format)
        // A folder per body: the same image asked for again is the same file, another one never clobbers it.
        let sub = String(response.entry.sha256.prefix(16))
        let data = try response.data()
        let folder = folder
        return try await BlockingWork.run {
            Result { () throws -> String in
                let parent = try Self.privateFolder(folder)
                let destination = parent + "/" + sub
                if mkdir(destination, 0o700) != 0, errno != EEXIST {
                    throw FileSystemError(operation: "create", path: destination, errno: errno)
                }
                let file = URL(fileURLWithPath: destination + "/" + name)
                _ = try OutputFile.publish(.data(data), byteCount: Int64(data.count), sha256: nil, to: file, replace: true)
                return file.path
            }
        }.get()
    }

    /// `path`, made if missing, and only if it is a real folder this user alone can use.
    static func privateFolder(_ path: String) throws -> String {
        if mkdir(path, 0o700) != 0, errno != EEXIST { throw FileSystemError(operation: "create", path: path, errno: errno) }
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
            status.st_mode & 0o077 == 0
        else { throw FileSystemError(operation: "use (it is not a private folder of this user's)", path: path, errno: EPERM) }
        return path
    }
}
