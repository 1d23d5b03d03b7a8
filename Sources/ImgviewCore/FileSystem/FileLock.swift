import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An advisory lock on a file (`flock`), shared by every imgview process that uses one cache folder.
///
/// The kernel drops it when the process dies, so a `kill -9` never leaves the cache locked.
public final class FileLock: Sendable {
    private let path: String

    public init(path: String) {
        self.path = path
    }

    /// Runs `body` holding the lock exclusively, waiting for other processes to release it.
    public func withExclusiveLock<T>(_ body: () throws -> T) throws -> T {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileSystemError(operation: "lock", path: path, errno: errno) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}

/// A failed file-system call, with the path and the system's reason.
public struct FileSystemError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let code: Int32

    public init(operation: String, path: String, errno code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String {
        "\(TerminalText.sanitized(path)): cannot \(operation): \(String(cString: strerror(code)))"
    }
}
