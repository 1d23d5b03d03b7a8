import Foundation

/// A write on this machine that failed while a download was kept: the disk is full, a quota is
/// reached, the file system is read-only, or permission is denied.
public struct StorageFailure: Error, Sendable, Equatable {
    /// What was being done ("write", "create", "rename"…).
    public let operation: String
    /// The file it was done to.
    public let path: String
    /// The system's error number.
    public let code: Int32

    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public init(_ error: FileSystemError) {
        self.init(operation: error.operation, path: error.path, code: error.code)
    }

    /// Whether `code` says the machine cannot take the write (as opposed to the cache being damaged).
    public static func isLocal(_ code: Int32) -> Bool {
        [ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EFBIG, EIO].contains(code)
    }

    /// Words for the user: what failed, why, and in which folder (the file's own name is a temporary one).
    public var reason: String {
        let folder = (path as NSString).deletingLastPathComponent
        return "cannot \(operation) the download: \(String(cString: strerror(code))) (in \(TerminalText.sanitized(folder)))"
    }
}
