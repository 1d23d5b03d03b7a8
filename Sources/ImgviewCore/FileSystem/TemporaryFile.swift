import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file that a download writes into, removed when dropped unless something took it over.
public final class TemporaryFile: @unchecked Sendable {
    public let url: URL
    let descriptor: Int32
    private let lock = NSLock()
    private var isKept = false
    private var isClosed = false

    /// Creates `folder/<pid>-<random>.part`; the pid lets a later process remove it if this one is killed.
    public init(in folder: URL) throws {
        let url = folder.appendingPathComponent("\(getpid())-\(UUID().uuidString).part")
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystemError(operation: "create", path: url.path, errno: errno) }
        self.url = url
        self.descriptor = descriptor
    }

    public func write(_ data: Data) throws {
        try AtomicFile.writeAll(data, to: descriptor, path: url.path)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try AtomicFile.writeAll(bytes, to: descriptor, path: url.path)
    }

    /// Closes the file; it stays until dropped or kept.
    ///
    /// No fsync: a blob's bytes are checked against its SHA-256 on every read, so one torn by a
    /// power cut is found and fetched again, and forcing 100 MB to disk would halve download speed.
    public func finish() throws {
        try lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            guard close(descriptor) == 0 else { throw FileSystemError(operation: "close", path: url.path, errno: errno) }
        }
    }

    /// Marks the file as taken over (renamed away); it will not be removed on deinit.
    func keep() {
        lock.withLock { isKept = true }
    }

    /// Removes the file now rather than when the last reference goes, which may be on another thread later.
    func discard() {
        let remove = lock.withLock {
            defer { isKept = true }
            return !isKept
        }
        if remove { unlink(url.path) }
    }

    deinit {
        if !isClosed { close(descriptor) }
        if !isKept { unlink(url.path) }
    }

    /// Whether a `<pid>-….part` file belongs to a process that is gone.
    static func isAbandoned(_ name: String) -> Bool {
        guard name.hasSuffix(".part"), let pid = Int32(name.prefix { $0 != "-" }) else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}
