import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A file-system failure as the pipeline reports it when a download cannot be kept: this
/// machine's problem (disk full, quota, read-only, permission), not the network's.
extension FileSystemError: Equatable {
    public static func == (lhs: FileSystemError, rhs: FileSystemError) -> Bool {
        lhs.operation == rhs.operation && lhs.path == rhs.path && lhs.code == rhs.code
    }

    /// Whether the system's error says the machine cannot take the write (as opposed to the cache
    /// being damaged).
    public var isLocalStorageFailure: Bool {
        [ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EFBIG, EIO].contains(code)
    }

    /// Words for the user: what failed, why, and in which folder (the file's own name is a temporary one).
    var storageReason: String {
        let folder = PathText.folder(of: path)
        return "cannot \(operation) the download: \(String(cString: strerror(code))) (in \(TerminalText.sanitized(folder)))"
    }
}
