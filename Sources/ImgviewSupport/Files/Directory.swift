import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// An open folder that names are looked up in, never following a link or opening anything blocking.
///
/// The disk cache holds one per folder it uses, so every file it reads, renames or removes is
/// resolved relative to the folder it opened, whatever someone later puts at the folder's path:
/// a symbolic link planted in the cache leads nowhere outside it. Opening a file refuses links
/// (`O_NOFOLLOW`), opens without blocking (`O_NONBLOCK`: a FIFO where a file should be cannot
/// hang a command) and checks that what it opened is a regular file.
public final class Directory: Sendable {
    public let descriptor: FileDescriptor
    /// The folder's path, for messages only; nothing is opened through it after `init`.
    public let path: String

    private init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        try? descriptor.close()
    }

    /// Opens the folder at `path`; links along it are followed, since the user named it.
    public static func open(_ path: String) throws(Errno) -> Directory {
        let raw = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard raw >= 0 else { throw Errno(rawValue: errno) }
        return Directory(descriptor: FileDescriptor(rawValue: raw), path: path)
    }

    /// The folder `name` inside this one; a link, or anything else that is not a folder, is refused (`ENOTDIR`).
    public func subdirectory(_ name: String) throws(Errno) -> Directory {
        let raw = openat(descriptor.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard raw >= 0 else { throw Errno(rawValue: errno == ELOOP ? ENOTDIR : errno) }
        return Directory(descriptor: FileDescriptor(rawValue: raw), path: path + "/" + name)
    }

    /// The folder `name`, made if missing; whatever else stands under that name (a link, a file,
    /// a FIFO) is removed first, so the folder is always a real one inside this folder.
    public func makeSubdirectory(_ name: String, permissions: mode_t = 0o755) throws(Errno) -> Directory {
        if let existing = try? subdirectory(name) { return existing }
        if let status = status(of: name), status.type != .directory { _ = removeItem(name) }
        if mkdirat(descriptor.rawValue, name, permissions) != 0, errno != EEXIST { throw Errno(rawValue: errno) }
        return try subdirectory(name)
    }

    /// What `name` is, not following a link; nil when there is nothing under that name.
    public func status(of name: String) -> Stat? {
        try? Stat(name, relativeTo: descriptor, flags: .symlinkNoFollow)
    }

    /// Opens the regular file `name` for reading; a link, FIFO, device, socket or folder is refused (`EFTYPE`-like `EINVAL`).
    public func openFile(_ name: String) throws(Errno) -> FileDescriptor {
        try openRegular(name, flags: O_RDONLY)
    }

    /// Opens `name` with `flags` (plus `O_NOFOLLOW`, `O_NONBLOCK`, `O_CLOEXEC`), and only if it is a regular file.
    ///
    /// - Parameter soleName: refuse a file with other names (`EMLINK`): one to be written in place
    ///   must not be a hard link planted to a file elsewhere, which `O_NOFOLLOW` cannot see.
    package func openRegular(
        _ name: String, flags: Int32, permissions: mode_t = 0o644, soleName: Bool = false
    ) throws(Errno) -> FileDescriptor {
        let raw = openat(descriptor.rawValue, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, permissions)
        guard raw >= 0 else { throw Errno(rawValue: errno == ELOOP ? EINVAL : errno) }
        let file = FileDescriptor(rawValue: raw)
        guard let status = try? Stat(file), status.type == .regular else {
            try? file.close()
            throw Errno(rawValue: EINVAL)
        }
        guard !soleName || status.linkCount == 1 else {
            try? file.close()
            throw Errno(rawValue: EMLINK)
        }
        return file
    }

    /// Opens the file `name` to write it in place, as `openRegular` with `soleName`; whatever else
    /// stands under the name (a folder, link, FIFO, device, or a hard link to a file elsewhere) is
    /// damage, removed (the name only, never what it leads to) and made again as a file.
    package func openOwnFile(_ name: String, flags: Int32) throws(Errno) -> FileDescriptor {
        do {
            return try openRegular(name, flags: flags, soleName: true)
        } catch {
            // Only what is there and is not this folder's own file goes; a file we may not open stays.
            guard let status = status(of: name), status.type != .regular || status.linkCount > 1 else { throw error }
            removeItem(name)
            return try openRegular(name, flags: flags, soleName: true)
        }
    }

    /// Every name in the folder but `.` and `..`, with its type as the folder records it.
    public func list() -> [(name: String, isDirectory: Bool)] {
        let copy = dup(descriptor.rawValue)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            Glibc.close(copy)
            return []
        }
        defer { closedir(stream) }
        // A duplicate shares the position of the original: start from the top each time.
        rewinddir(stream)
        var names: [(String, Bool)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            names.append((name, entry.pointee.d_type == UInt8(DT_DIR)))
        }
        return names
    }

    /// Every name in the folder.
    public func names() -> [String] {
        list().map(\.name)
    }

    /// Removes `name`: a file, link, FIFO or device node by unlinking the name (never what a
    /// link points to), a folder with everything in it, links inside it included, never followed.
    @discardableResult
    public func removeItem(_ name: String) -> Bool {
        if unlinkat(descriptor.rawValue, name, 0) == 0 { return true }
        guard errno == EISDIR else { return false }
        if let folder = try? subdirectory(name) {
            for child in folder.names() { folder.removeItem(child) }
        }
        return unlinkat(descriptor.rawValue, name, AT_REMOVEDIR) == 0
    }

    /// Renames `name` to `newName` in `folder`, replacing a file there; a folder in the way is removed first.
    public func rename(_ name: String, to newName: String, in folder: Directory) throws(Errno) {
        if renameat(descriptor.rawValue, name, folder.descriptor.rawValue, newName) == 0 { return }
        let code = errno
        guard code == EISDIR || code == ENOTEMPTY || code == EEXIST else { throw Errno(rawValue: code) }
        // Something that is not a file sits where the file belongs: damage, cleared so the cache heals.
        folder.removeItem(newName)
        guard renameat(descriptor.rawValue, name, folder.descriptor.rawValue, newName) == 0 else { throw Errno(rawValue: errno) }
    }

    /// Gives the file `name` a second name, `newName` in `folder`; fails with `EEXIST` rather than replace.
    public func link(_ name: String, as newName: String, in folder: Directory) throws(Errno) {
        guard linkat(descriptor.rawValue, name, folder.descriptor.rawValue, newName, 0) == 0 else { throw Errno(rawValue: errno) }
    }
}

extension Errno {
    /// The system's error number in `error`; `EIO` for an error that did not come from the system.
    package static func code(of error: any Error) -> Int32 {
        (error as? Errno)?.rawValue ?? Glibc.EIO
    }
}
