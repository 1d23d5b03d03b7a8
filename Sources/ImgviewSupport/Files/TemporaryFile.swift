import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A file that a download writes into, or a private name for a cache blob being read; removed
/// when dropped unless something took it over.
///
/// Named `<pid>-<random>.part`, so a later process can tell it from a live one's and remove it
/// if this process was killed.
public final class TemporaryFile: @unchecked Sendable {
    public let url: URL
    package let folder: Directory
    package let name: String
    package let descriptor: Int32
    private let lock = ThreadLock()
    private var isKept = false
    private var isClosed = false

    /// Creates a new empty file in `folder`.
    public init(in folder: Directory) throws {
        name = Self.makeName()
        let file: FileDescriptor
        do {
            file = try folder.openRegular(name, flags: O_RDWR | O_CREAT | O_EXCL)
        } catch {
            throw FileSystemError(operation: "create", path: folder.path + "/" + name, errno: error.rawValue)
        }
        self.folder = folder
        self.url = URL(fileURLWithPath: folder.path).appendingPathComponent(name)
        self.descriptor = file.rawValue
    }

    /// Creates a new empty file in the folder at `url`.
    public convenience init(in url: URL) throws {
        do {
            try self.init(in: Directory.open(url.path))
        } catch let error as Errno {
            throw FileSystemError(operation: "create", path: url.path, errno: error.rawValue)
        }
    }

    /// A private second name in `folder` for the regular file `source` of `sourceFolder`, open for
    /// reading: the bytes stay reachable however the original name is removed or replaced.
    package init(linking source: String, in sourceFolder: Directory, into folder: Directory) throws(Errno) {
        name = Self.makeName()
        try sourceFolder.link(source, as: name, in: folder)
        do {
            descriptor = try folder.openFile(name).rawValue
        } catch {
            // A link under the source's name was linked as a link: refuse it, and leave nothing.
            unlinkat(folder.descriptor.rawValue, name, 0)
            throw error
        }
        self.folder = folder
        self.url = URL(fileURLWithPath: folder.path).appendingPathComponent(name)
    }

    private static func makeName() -> String {
        "\(getpid())-\(UUID().uuidString).part"
    }

    /// The open file, for reading or copying while the temporary file lives.
    public var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: descriptor) }

    public func write(_ data: Data) throws {
        try AtomicFile.writeAll(data, to: descriptor, path: url.path)
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        try AtomicFile.writeAll(bytes, to: descriptor, path: url.path)
    }

    /// Closes the file; it stays until dropped or kept.
    ///
    /// No fsync: a blob's bytes are checked against its SHA-256 on every read, so one torn by a
    /// power cut is found and fetched again, and forcing a body to disk would slow every download
    /// (DECISIONS.md, "No fsync of cache blobs or outputs").
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
    package func discard() {
        let remove = lock.withLock {
            defer { isKept = true }
            return !isKept
        }
        if remove { unlinkat(folder.descriptor.rawValue, name, 0) }
    }

    deinit {
        if !isClosed { close(descriptor) }
        if !isKept { unlinkat(folder.descriptor.rawValue, name, 0) }
    }

    /// Whether a `<pid>-….part` file belongs to a process that is gone.
    package static func isAbandoned(_ name: String) -> Bool {
        guard name.hasSuffix(".part"), let pid = Int32(name.prefix { $0 != "-" }) else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}
