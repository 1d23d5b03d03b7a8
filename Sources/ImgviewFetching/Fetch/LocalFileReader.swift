import ImgviewImaging
import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a local image file, for every consumer (`show FILE`, a `file://` catalog entry, a file
/// in the browser): one set of checks, one set of errors.
///
/// Only regular files are read (a FIFO or a device would block or never end), a file over
/// `limit` is refused before anything is read, and the bytes go straight into one buffer; or,
/// past a size the caller names, are only hashed, for the decoder to map.
public struct LocalFileReader: Sendable {
    public var limit: Int64

    public init(limit: Int64) {
        self.limit = limit
    }

    /// What a file holds, read whole or left where it is.
    public enum Contents: Sendable {
        case data(Data)
        /// Larger than `wholeLimit`: its size, SHA-256 (hashed in blocks, or empty when not asked
        /// for) and header, read through the descriptor already open; the decoder maps it (`MappedFile`).
        case file(byteCount: Int64, sha256: String, probe: ImageProbe?)
    }

    /// The file's bytes, its modification time, and its stamp as it was opened.
    public func read(_ url: URL) throws(ImagePipelineError) -> (data: Data, modified: Date, stamp: FileStamp) {
        switch try read(url, wholeLimit: .max) {
        case (.data(let data), let modified, let stamp): (data, modified, stamp)
        case (.file, _, _): preconditionFailure("a file under Int.max is read whole")
        }
    }

    /// The file's bytes when it holds no more than `wholeLimit` of them, else its size and hash
    /// (when `hashing`); its modification time, and its stamp as it was opened.
    public func read(
        _ url: URL, wholeLimit: Int, hashing: Bool = true
    ) throws(ImagePipelineError) -> (contents: Contents, modified: Date, stamp: FileStamp) {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; a regular file reads the same with it.
        let descriptor = url.withFilePath { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { throw Self.error(url, errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.error(url, errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .fileUnreadable(url, reason: "not a regular file") }
        let size = Int64(status.st_size)
        guard size <= limit else { throw .tooLarge(url, limit: limit) }
        let modified = Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))
        let stamp = FileStamp(status: status)
        guard size > 0 else { return (.data(Data()), modified, stamp) }
        guard size <= Int64(wholeLimit) else {
            let file = FileDescriptor(rawValue: descriptor)
            let probe = FileBytes(descriptor: file, windowSize: ImageProbe.fileWindowSize).flatMap { ImageProbe.read($0, through: .header) }
            guard hashing else { return (.file(byteCount: size, sha256: "", probe: probe), modified, stamp) }
            do {
                return (.file(byteCount: size, sha256: try FileDigest.sha256(of: file), probe: probe), modified, stamp)
            } catch {
                throw Self.error(url, (error as? Errno)?.rawValue ?? EIO)
            }
        }
        var failure: Int32 = 0
        var data = Data(count: Int(size))
        let count = data.withUnsafeMutableBytes { buffer -> Int in
            var filled = 0
            while filled < buffer.count {
                let got: Int
                do {
                    got = try FileDescriptor(rawValue: descriptor).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                } catch {
                    failure = (error as? Errno)?.rawValue ?? EIO
                    return filled
                }
                if got == 0 { break }  // the file shrank while it was read: take what is there
                filled += got
            }
            return filled
        }
        if failure != 0 { throw Self.error(url, failure) }
        if count < data.count { data.removeSubrange(count...) }
        return (.data(data), modified, stamp)
    }

    /// Why the file at `url` could not be opened or read (`errno` `code`), as every reader of a local file says it.
    static func error(_ url: URL, _ code: Int32) -> ImagePipelineError {
        code == ENOENT ? .fileNotFound(url) : .fileUnreadable(url, reason: String(cString: strerror(code)))
    }
}
