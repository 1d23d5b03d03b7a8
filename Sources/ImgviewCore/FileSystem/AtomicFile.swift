import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes files so that readers, and a `kill -9` at any moment, see the old file or the new one, never a part.
public enum AtomicFile {
    /// Linux's `O_TMPFILE`, which Swift's Glibc module does not export: an unnamed file in a folder.
    private static let openTemporary: Int32 = 0o20_000_000 | O_DIRECTORY

    /// Writes `data` to `url` through a temporary file in the same folder: fsync (unless `sync` is false), then rename over.
    ///
    /// Without `sync`, a power cut may lose the new content (the old file or an empty one remains), but a
    /// killed process never leaves a partial file: for data that is cheap to lose, such as counters.
    public static func write(_ data: Data, to url: URL, sync: Bool = true) throws {
        let staged = try stage(data, for: url, sync: sync)
        do {
            try staged.commit()
        } catch {
            staged.discard()
            throw error
        }
    }

    /// The first half of `write(_:to:sync:)`: `data` written (and fsynced unless `sync` is false) under
    /// a temporary name next to `url`, for the caller to `commit` (rename into place) or `discard`.
    public static func stage(_ data: Data, for url: URL, sync: Bool = true) throws -> StagedFile {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystemError(operation: "create", path: temporary.path, errno: errno) }
        defer { close(descriptor) }
        do {
            try writeAll(data, to: descriptor, path: temporary.path)
            guard !sync || fsync(descriptor) == 0 else { throw FileSystemError(operation: "sync", path: temporary.path, errno: errno) }
        } catch {
            unlink(temporary.path)
            throw error
        }
        return StagedFile(temporary: temporary.path, destination: url.path)
    }

    /// A complete file under a temporary name, waiting to replace its destination.
    public struct StagedFile: Sendable {
        let temporary: String
        let destination: String

        /// Renames the file over its destination, atomically.
        public func commit() throws {
            guard rename(temporary, destination) == 0 else { throw FileSystemError(operation: "rename", path: destination, errno: errno) }
        }

        /// Removes the temporary file (after a failure; harmless after `commit`).
        public func discard() {
            unlink(temporary)
        }
    }

    /// Whether `name` is a temporary file of `write(_:to:)` (`.<name>.<pid>.<random>.tmp`) whose process is gone.
    public static func isAbandoned(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.hasPrefix("."), parts.count >= 5, parts.last == "tmp", let pid = Int32(parts[parts.count - 3]), pid > 0 else {
            return false
        }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Creates `destination` with the bytes of `source`, never leaving a partial file behind.
    ///
    /// The copy goes to an unnamed file (`O_TMPFILE`) in the destination's folder, which the kernel
    /// discards if the process dies; only a complete file gets a name. Without `replace`, an existing
    /// destination is left alone and `FileSystemError` with `EEXIST` is thrown.
    public static func publish(copying source: URL, to destination: URL, replace: Bool) throws {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw FileSystemError(operation: "read", path: source.path, errno: errno) }
        defer { close(input) }
        try publish(to: destination, replace: replace) { output in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = read(input, buffer.baseAddress, buffer.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FileSystemError(operation: "read", path: source.path, errno: errno)
                }
                if count == 0 { break }
                try writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), to: output, path: destination.path)
            }
        }
    }

    /// Creates `destination` holding `data`, with the same guarantees as `publish(copying:)`.
    public static func publish(_ data: Data, to destination: URL, replace: Bool) throws {
        try publish(to: destination, replace: replace) { output in
            try writeAll(data, to: output, path: destination.path)
        }
    }

    private static func publish<T>(to destination: URL, replace: Bool, fill: (Int32) throws -> T) throws -> T {
        let folder = destination.deletingLastPathComponent().path
        if !replace, FileManager.default.fileExists(atPath: destination.path) {
            throw FileSystemError(operation: "create", path: destination.path, errno: EEXIST)
        }
        var output = open(folder, openTemporary | O_WRONLY | O_CLOEXEC, 0o644)
        var namedTemporary: String?
        if output < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
            // File systems without O_TMPFILE: a hidden named file, removed on failure.
            let path = "\(folder)/.\(destination.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).part"
            output = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            namedTemporary = path
        }
        guard output >= 0 else { throw FileSystemError(operation: "create", path: destination.path, errno: errno) }
        defer {
            close(output)
            if let namedTemporary { unlink(namedTemporary) }
        }
        // No fsync: the name appears only once the bytes are all written, which is what a killed
        // process needs; like cp and curl, imgview leaves flushing to disk to the kernel.
        let result = try fill(output)
        let source = namedTemporary ?? "/proc/self/fd/\(output)"
        let flags = namedTemporary == nil ? AT_SYMLINK_FOLLOW : 0
        if replace {
            // link() cannot replace; link under a private name, then rename over atomically.
            let staging = "\(folder)/.\(destination.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).new"
            guard linkat(AT_FDCWD, source, AT_FDCWD, staging, flags) == 0 else {
                throw FileSystemError(operation: "create", path: destination.path, errno: errno)
            }
            guard rename(staging, destination.path) == 0 else {
                let code = errno
                unlink(staging)
                throw FileSystemError(operation: "replace", path: destination.path, errno: code)
            }
        } else {
            // link() fails with EEXIST rather than clobber a file that appeared meanwhile.
            guard linkat(AT_FDCWD, source, AT_FDCWD, destination.path, flags) == 0 else {
                throw FileSystemError(operation: "create", path: destination.path, errno: errno)
            }
        }
        return result
    }

    static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { try writeAll($0, to: descriptor, path: path) }
    }

    static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
    }
}

extension Digest {
    /// Lower-case hexadecimal, as `sha256sum` prints it.
    ///
    /// By table, not `String(format:)` per byte: `list` names 100,000 cache entries by hash, and
    /// formatting took 60 µs a hash.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: Self.byteCount * 2) { buffer in
            var index = 0
            for byte in self {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
