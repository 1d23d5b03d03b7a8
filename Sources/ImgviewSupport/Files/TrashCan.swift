#if canImport(Glibc)
    import Glibc
#endif

/// Moves files to the trash as the freedesktop.org Trash specification (1.0) says, so file
/// managers and `trash-list`/`trash-restore` list and restore them, and puts them back.
///
/// A file on the same file system as the home trash (`$XDG_DATA_HOME/Trash`, else
/// `~/.local/share/Trash`) goes there; one on another volume goes to that volume's
/// `$topdir/.Trash/$uid` (when `.Trash` is a real folder with the sticky bit) or
/// `$topdir/.Trash-$uid`. A volume where neither can be used is refused, never copied across:
/// the file stays where it is. Nothing is ever deleted: the file is renamed into `files/`, after
/// its `.trashinfo` is written in `info/`, and a failed rename takes the `.trashinfo` away again.
public struct TrashCan: Sendable {
    /// The home trash folder.
    public let homeTrash: String
    private let userID: uid_t

    /// - Parameter environment: `XDG_DATA_HOME` and `HOME` are read from it.
    public init(environment: [String: String], userID: uid_t = getuid()) {
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
        homeTrash = (dataHome ?? Self.join(home, ".local/share")) + "/Trash"
        self.userID = userID
    }

    /// Moves the file at the absolute `path` to the trash and says where it went; `now` is the
    /// deletion date the `.trashinfo` records (local time).
    public func trash(_ path: String, now: Int = Int(time(nil))) throws(TrashError) -> TrashedFile {
        let (folder, name) = Self.split(path)
        guard !name.isEmpty, name != ".", name != ".." else { throw TrashError(path: path, reason: "not a file") }
        var status = stat()
        guard lstat(path, &status) == 0 else { throw TrashError(path: path, errno: errno) }
        // The folder's real path (the file itself may be a link: the link is what moves).
        guard let realFolder = Self.realPath(folder) else { throw TrashError(path: path, errno: errno) }
        let original = Self.join(realFolder, name)
        var folderStatus = stat()
        guard stat(realFolder, &folderStatus) == 0 else { throw TrashError(path: path, errno: errno) }
        let (trash, recordedPath) = try trashFolder(for: original, device: folderStatus.st_dev)
        let info = trash + "/info"
        let files = trash + "/files"
        let chosen = try writeInfo(in: info, files: files, name: name, recordedPath: recordedPath, now: now, for: path)
        if rename(original, files + "/" + chosen) != 0 {
            let code = errno
            unlink(info + "/" + chosen + ".trashinfo")
            throw TrashError(path: path, errno: code)
        }
        return TrashedFile(originalPath: original, trashedPath: files + "/" + chosen, infoPath: info + "/" + chosen + ".trashinfo")
    }

    /// Puts a file `trash` moved back where it was, unless something has taken its place since.
    public func restore(_ item: TrashedFile) throws(TrashError) {
        if FileCalls.renameNoReplace(item.trashedPath, item.originalPath) != 0 {
            let code = errno
            guard code == EINVAL || code == ENOSYS else {
                throw TrashError(path: item.originalPath, reason: code == EEXIST ? "another file is there now" : Self.text(code))
            }
            // A file system without RENAME_NOREPLACE: look first, then rename.
            var status = stat()
            if lstat(item.originalPath, &status) == 0 { throw TrashError(path: item.originalPath, reason: "another file is there now") }
            guard rename(item.trashedPath, item.originalPath) == 0 else { throw TrashError(path: item.originalPath, errno: errno) }
        }
        unlink(item.infoPath)
    }

    // MARK: Where

    /// The trash folder for a file at `path` on `device`, and the path its `.trashinfo` records.
    private func trashFolder(for path: String, device: dev_t) throws(TrashError) -> (folder: String, recordedPath: String) {
        if Self.device(ofNearest: homeTrash) == device {
            guard Self.makeFolders(homeTrash, parents: true) else {
                throw TrashError(path: path, reason: "cannot make the trash folder \(homeTrash): \(Self.text(errno))")
            }
            return (homeTrash, path)
        }
        let top = Self.topDirectory(of: Self.split(path).folder, device: device)
        let relative = String(path.dropFirst(top == "/" ? 1 : top.count + 1))
        // $topdir/.Trash shared by everyone: only a real folder with the sticky bit, else it is not to be used.
        let shared = Self.join(top, ".Trash")
        var status = stat()
        if lstat(shared, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_mode & S_ISVTX != 0 {
            let own = shared + "/\(userID)"
            if Self.makeFolders(own, parents: false), isOwnFolder(own) { return (own, relative) }
        }
        let own = Self.join(top, ".Trash-\(userID)")
        guard Self.makeFolders(own, parents: false) else {
            throw TrashError(path: path, reason: "no trash can be made on \(top) (\(Self.text(errno)))")
        }
        guard isOwnFolder(own) else { throw TrashError(path: path, reason: "\(own) is not a folder of this user's") }
        return (own, relative)
    }

    /// Whether `path` is a real folder (not a link) this user owns.
    private func isOwnFolder(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR && status.st_uid == userID
    }

    /// Writes `info/NAME.trashinfo` for the first free name (`photo.jpg`, `photo.2.jpg`, …) and returns the name.
    private func writeInfo(
        in info: String, files: String, name: String, recordedPath: String, now: Int, for path: String
    ) throws(TrashError) -> String {
        let text = "[Trash Info]\nPath=\(Self.escaped(recordedPath))\nDeletionDate=\(ISOTimestamp.localString(fromSeconds: now))\n"
        for attempt in 1...10_000 {
            let candidate = Self.numbered(name, attempt)
            var status = stat()
            // Another program's leftover in files/ without its info: not ours to take.
            if lstat(files + "/" + candidate, &status) == 0 { continue }
            let descriptor = open(info + "/" + candidate + ".trashinfo", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if descriptor < 0 {
                if errno == EEXIST { continue }
                throw TrashError(path: path, reason: "cannot write in \(info): \(Self.text(errno))")
            }
            let written = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            let code = errno
            close(descriptor)
            guard written == text.utf8.count else {
                unlink(info + "/" + candidate + ".trashinfo")
                throw TrashError(path: path, reason: "cannot write in \(info): \(Self.text(written < 0 ? code : ENOSPC))")
            }
            return candidate
        }
        throw TrashError(path: path, reason: "no free name in \(files)")
    }

    // MARK: Helpers

    /// `name`, then `name.2.ext`, `name.3.ext`…
    static func numbered(_ name: String, _ attempt: Int) -> String {
        guard attempt > 1 else { return name }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot]).\(attempt)\(name[dot...])"
        }
        return "\(name).\(attempt)"
    }

    /// A path as `.trashinfo` writes it: percent-escaped bytes, `/` kept (as GLib's `gio trash` does).
    static func escaped(_ path: String) -> String {
        var text = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                text.unicodeScalars.append("%")
                text.unicodeScalars.append(digits[Int(byte >> 4)])
                text.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return text
    }

    /// The mount point `folder` is on: the highest ancestor on the same `device`.
    static func topDirectory(of folder: String, device: dev_t) -> String {
        var current = folder
        while current != "/" {
            let parent = split(current).folder
            var status = stat()
            guard stat(parent, &status) == 0, status.st_dev == device else { return current }
            current = parent
        }
        return "/"
    }

    /// The device of `path`, or of its nearest ancestor that exists.
    static func device(ofNearest path: String) -> dev_t? {
        var current = path
        while true {
            var status = stat()
            if stat(current, &status) == 0 { return status.st_dev }
            if current == "/" || current.isEmpty { return nil }
            current = split(current).folder
        }
    }

    /// Makes `trash` (and, with `parents`, the folders above it) and its `files` and `info`, each 0700.
    static func makeFolders(_ trash: String, parents: Bool) -> Bool {
        if parents {
            var prefix = ""
            for component in trash.split(separator: "/") {
                prefix += "/" + component
                if mkdir(prefix, 0o700) != 0, errno != EEXIST { return false }
            }
        } else if mkdir(trash, 0o700) != 0, errno != EEXIST {
            return false
        }
        for sub in ["files", "info"] where mkdir(trash + "/" + sub, 0o700) != 0 && errno != EEXIST {
            return false
        }
        return true
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
        let folder = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        return (folder, String(trimmed[trimmed.index(after: slash)...]))
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func text(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

/// Where `TrashCan` put a file: what `restore` needs to put it back.
public struct TrashedFile: Sendable, Equatable {
    public let originalPath: String
    /// The file, in the trash's `files/`.
    public let trashedPath: String
    /// Its `.trashinfo`.
    public let infoPath: String
}

/// A file that could not be moved to the trash or back; it is where it was.
public struct TrashError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// Why, in a few words: "read-only file system", "permission denied".
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, reason: code == ENOENT ? "it is gone" : TrashCan.text(code))
    }

    public var description: String { "\(TerminalText.sanitized(path)): \(reason)" }
}

/// Calls Swift's Glibc module does not declare.
private enum FileCalls {
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    private static let renameAt2: RenameAt2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2").map {
        unsafeBitCast($0, to: RenameAt2.self)
    }

    /// `renameat2(…, RENAME_NOREPLACE)`: fails with `EEXIST` rather than replace; `ENOSYS` when glibc lacks it.
    static func renameNoReplace(_ from: String, _ to: String) -> Int32 {
        guard let renameAt2 else {
            errno = ENOSYS
            return -1
        }
        return renameAt2(AT_FDCWD, from, AT_FDCWD, to, 1)
    }
}
