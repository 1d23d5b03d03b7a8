public import Crypto
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Writes files so that readers, and a `kill -9` at any moment, see the old file or the new one, never a part.
public enum AtomicFile {
    /// Writes `data` as `name` in `folder` through a temporary file beside it: fsync (unless `sync` is
    /// false), then rename over. `modified` becomes the file's modification time when given.
    ///
    /// Without `sync`, a power cut may lose the new content (the old file or an empty one remains), but a
    /// killed process never leaves a partial file: for data that is cheap to lose, such as counters.
    public static func write(
        _ data: Data, as name: String, in folder: Directory, sync: Bool = true, modified: Date? = nil, permissions: mode_t = 0o644
    ) throws {
        let staged = try stage(data, as: name, in: folder, sync: sync, modified: modified, permissions: permissions)
        do {
            try staged.commit()
        } catch {
            staged.discard()
            throw error
        }
    }

    /// The first half of `write`: `data` written (and fsynced unless `sync` is false) under a
    /// temporary name beside `name`, for the caller to `commit` (rename into place) or `discard`.
    public static func stage(
        _ data: Data, as name: String, in folder: Directory, sync: Bool = true, modified: Date? = nil, permissions: mode_t = 0o644
    ) throws
        -> StagedFile
    {
        let temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let path = folder.path + "/" + temporary
        let file: FileDescriptor
        do {
            file = try folder.openRegular(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, permissions: permissions)
        } catch {
            throw FileSystemError(operation: "create", path: path, errno: error.rawValue)
        }
        defer { try? file.close() }
        do {
            try data.withUnsafeBytes { _ = try file.writeAll($0) }
            if let modified { try LinuxFileCalls.setModificationTime(of: file, to: modified) }
            if sync, fsync(file.rawValue) != 0 { throw Errno(rawValue: errno) }
        } catch {
            unlinkat(folder.descriptor.rawValue, temporary, 0)
            throw FileSystemError(operation: "write", path: path, errno: Errno.code(of: error))
        }
        return StagedFile(folder: folder, temporary: temporary, destination: name)
    }

    /// A complete file under a temporary name, waiting to replace its destination.
    public struct StagedFile: Sendable {
        let folder: Directory
        let temporary: String
        let destination: String

        /// Renames the file over its destination, atomically; a folder in the way is removed first.
        public func commit() throws {
            do {
                try folder.rename(temporary, to: destination, in: folder)
            } catch {
                throw FileSystemError(operation: "rename", path: folder.path + "/" + destination, errno: error.rawValue)
            }
        }

        /// Removes the temporary file (after a failure; harmless after `commit`).
        public func discard() {
            unlinkat(folder.descriptor.rawValue, temporary, 0)
        }
    }

    /// Whether `name` is a temporary file of `write` (`.<name>.<pid>.<random>.tmp`) whose process is gone.
    public static func isAbandoned(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.hasPrefix("."), parts.count >= 5, parts.last == "tmp", let pid = Int32(parts[parts.count - 3]), pid > 0 else {
            return false
        }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { try writeAll($0, to: descriptor, path: path) }
    }

    static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        do {
            _ = try FileDescriptor(rawValue: descriptor).writeAll(buffer)
        } catch {
            throw FileSystemError(operation: "write", path: path, errno: Errno.code(of: error))
        }
    }
}

extension Digest {
    /// Lower-case hexadecimal, as `sha256sum` prints it.
    ///
    /// By table, not `String(format:)` per byte: `list` names every cache entry by its hash, and
    /// formatting each byte as text was most of a large cache's listing (DECISIONS.md, "Figures
    /// once in code comments").
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        // Through the digest's bytes, not `for byte in self`: the digest's iterator is an
        // associated type the runtime looks up by name, scanning every conformance the first time.
        return withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
                var index = 0
                for byte in bytes {
                    buffer[index] = digits[Int(byte >> 4)]
                    buffer[index + 1] = digits[Int(byte & 0x0F)]
                    index += 2
                }
                return index
            }
        }
    }
}
