import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// An advisory lock on a file (`flock`), shared by every imgview process that uses one cache folder.
///
/// The kernel drops it when the process dies, so a `kill -9` never leaves the cache locked. The
/// file is opened inside the cache's own folder without following a link; anything that is not a
/// regular file under its name is removed and the file made again.
public final class FileLock: Sendable {
    private let folder: Directory
    private let name: String

    public init(name: String, in folder: Directory) {
        self.folder = folder
        self.name = name
    }

    /// Runs `body` holding the lock exclusively, waiting for other processes to release it.
    public func withExclusiveLock<T>(_ body: () throws -> T) throws -> T {
        try withLock(LOCK_EX, body)
    }

    /// Runs `body` holding the lock shared: alongside other shared holders, never during an exclusive one.
    public func withSharedLock<T>(_ body: () throws -> T) throws -> T {
        try withLock(LOCK_SH, body)
    }

    private func withLock<T>(_ operation: Int32, _ body: () throws -> T) throws -> T {
        let file = try open()
        defer { try? file.close() }
        do {
            _ = try Errno.retryingOnInterrupt { flock(file.rawValue, operation) }
        } catch {
            throw FileSystemError(operation: "lock", path: path, errno: error.rawValue)
        }
        defer { flock(file.rawValue, LOCK_UN) }
        return try body()
    }

    /// The lock file; a link, FIFO, folder or hard link planted under its name is damage, replaced
    /// by a real file (two processes repairing at the same instant could each lock a file of its
    /// own, a risk only a planted non-file opens).
    private func open() throws -> FileDescriptor {
        do {
            return try folder.openOwnFile(name, flags: O_RDWR | O_CREAT)
        } catch {
            throw FileSystemError(operation: "open", path: path, errno: error.rawValue)
        }
    }

    private var path: String { folder.path + "/" + name }
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
