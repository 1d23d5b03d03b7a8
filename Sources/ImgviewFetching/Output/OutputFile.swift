internal import Crypto
import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Puts a download at a path of the user's choosing: a file of its own, whole or not at all.
///
/// The bytes go into an unnamed file (`O_TMPFILE`) in the destination's folder, by a copy-on-write
/// clone where the file system has one, else an in-kernel copy, else plain reads and writes; only a
/// complete file gets its name, so a killed process leaves nothing. The output never shares its
/// storage with the cache: editing it cannot change the cache, and damage in the cache cannot reach
/// it. Only a regular file, or a symbolic link itself (never what it points to), is ever replaced,
/// and only when the caller says so; a file already holding exactly these bytes is left as it is.
public enum OutputFile {
    /// Where the bytes come from.
    public enum Source {
        /// An open regular file, read from its start.
        case file(FileDescriptor)
        case data(Data)
    }

    /// What publishing did.
    public enum Outcome: Sendable, Equatable {
        case written
        /// The destination already held these bytes; it was left untouched (like `wget -N`).
        case upToDate
    }

    /// Publishes `source` (of `byteCount` bytes, SHA-256 `sha256`) as `destination`.
    ///
    /// With `sha256` nil any existing file counts as different (the browser's `d` always saves anew);
    /// empty, the digest is not known (a body too large for the cache) and `source` is hashed only
    /// if a file of the same size is there. Without `replace`, an existing different file is left
    /// alone and `FileSystemError` with `EEXIST` is thrown. Something that is neither a regular file
    /// nor a link (a device node, a FIFO, a folder) is never replaced:
    /// `OutputFileError.notARegularFile`. A `draft` in the destination's folder that took the whole
    /// body as it arrived is named instead of copying `source` again; else `ownFile`, a download's
    /// own file holding `source`'s bytes that nothing else names (not the cache's), is given the
    /// name where it is on the destination's file system: written once, never copied.
    /// `attributes` go onto the new file before it is named.
    public static func publish(
        _ source: Source, byteCount: Int64, sha256: String?, to destination: URL, replace: Bool, draft: OutputDraft? = nil,
        ownFile: TemporaryFile? = nil, attributes: OutputAttributes = OutputAttributes()
    ) throws -> Outcome {
        let path = destination.path
        let folderPath = destination.deletingLastPathComponent().path
        let folder: Directory
        if let draft, draft.folder.path == folderPath {
            folder = draft.folder
        } else {
            do {
                folder = try Directory.open(folderPath)
            } catch {
                throw FileSystemError(operation: "create", path: path, errno: error.rawValue)
            }
        }
        let name = destination.lastPathComponent
        if let existing = folder.status(of: name) {
            switch existing.type {
            case .regular:
                if existing.size == byteCount, let digest = sha256.flatMap({ $0.isEmpty ? Self.digest(of: source) : $0 }),
                    holds(digest, name, in: folder)
                {
                    return .upToDate
                }
                guard replace else { throw FileSystemError(operation: "create", path: path, errno: EEXIST) }
            case .symbolicLink:
                guard replace else { throw FileSystemError(operation: "create", path: path, errno: EEXIST) }
            default:
                throw OutputFileError.notARegularFile(path)
            }
        }
        let filled = draft.flatMap { $0.folder === folder ? $0.finish(byteCount: byteCount) : nil }
        if filled == nil, let ownFile {
            do {
                try write(.own(ownFile), as: name, in: folder, path: path, replace: replace, attributes: attributes)
                return .written
            } catch is NotLinkable {
                // Another file system, or the file has another name by now: copied as any source.
            }
        }
        try write(filled.map(Filling.filled) ?? .source(source), as: name, in: folder, path: path, replace: replace, attributes: attributes)
        return .written
    }

    /// Writes all of `source` to `output` (standard output, say), from the source's start.
    public static func copy(_ source: Source, to output: FileDescriptor) throws {
        switch source {
        case .data(let data):
            try data.withUnsafeBytes { _ = try output.writeAll($0) }
        case .file(let input):
            try copyByReading(input, into: output)
        }
    }

    // MARK: Internals

    /// What the named file is made from.
    private enum Filling {
        /// Bytes still to be written into a new file.
        case source(Source)
        /// An unnamed file that already holds them (an `OutputDraft`'s, which stays its owner's to close).
        case filled(FileDescriptor)
        /// A download's own named file that holds them, to be linked where the output goes.
        case own(TemporaryFile)
    }

    /// A download's own file cannot be named as the output: nothing was written, copy instead.
    private struct NotLinkable: Error {}

    private static func write(
        _ filling: Filling, as name: String, in folder: Directory, path: String, replace: Bool, attributes: OutputAttributes
    ) throws {
        var file: FileDescriptor
        var temporaryName: String?
        var source: Source?
        var own: TemporaryFile?
        switch filling {
        case .filled(let filled):
            file = filled
        case .own(let download):
            // Only a file no one else names: a second name (the cache's blob, another output) would share its bytes.
            guard let opened = try? download.folder.openRegular(download.name, flags: O_RDONLY) else { throw NotLinkable() }
            guard let status = try? Stat(opened), status.linkCount == 1 else {
                try? opened.close()
                throw NotLinkable()
            }
            file = opened
            own = download
        case .source(let bytes):
            source = bytes
            do {
                if let unnamed = try LinuxFileCalls.openUnnamedFile(in: folder) {
                    file = unnamed
                } else {
                    // File systems without O_TMPFILE: a hidden named file, removed on failure.
                    let hidden = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).part"
                    file = try folder.openRegular(hidden, flags: O_WRONLY | O_CREAT | O_EXCL)
                    temporaryName = hidden
                }
            } catch {
                throw FileSystemError(operation: "create", path: path, errno: error.rawValue)
            }
        }
        defer {
            if source != nil || own != nil { try? file.close() }
            if let temporaryName { unlinkat(folder.descriptor.rawValue, temporaryName, 0) }
        }
        if let source {
            do {
                try fill(file, from: source)
            } catch {
                throw FileSystemError(operation: "write", path: path, errno: Errno.code(of: error))
            }
        }
        // After the last write (a write sets the modification time), before the name.
        attributes.apply(to: file)
        // No fsync: the name appears only once every byte is written, which is what a killed
        // process needs; like cp and curl, imgview leaves flushing to disk to the kernel.
        func giveName(_ target: String) throws(Errno) {
            if let own {
                try own.folder.link(own.name, as: target, in: folder)
            } else if let temporaryName {
                try folder.link(temporaryName, as: target, in: folder)
            } else {
                try LinuxFileCalls.name(file, as: target, in: folder)
            }
        }
        do {
            guard replace else {
                // link() fails with EEXIST rather than clobber a file that appeared meanwhile.
                try giveName(name)
                return
            }
            // A link cannot replace: name the file privately, then rename it over atomically.
            let staging = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).new"
            try giveName(staging)
            // Checked again just before: a device node that appeared meanwhile is not replaced either.
            if let existing = folder.status(of: name), existing.type != .regular, existing.type != .symbolicLink {
                unlinkat(folder.descriptor.rawValue, staging, 0)
                throw OutputFileError.notARegularFile(path)
            }
            guard renameat(folder.descriptor.rawValue, staging, folder.descriptor.rawValue, name) == 0 else {
                let code = errno
                unlinkat(folder.descriptor.rawValue, staging, 0)
                throw Errno(rawValue: code)
            }
        } catch let error as Errno {
            // Nothing got a name: the cache's tmp/ is on another file system than the output.
            if own != nil, error.rawValue == EXDEV { throw NotLinkable() }
            throw FileSystemError(operation: error == .fileExists ? "create" : "replace", path: path, errno: error.rawValue)
        }
    }

    /// The SHA-256 of `source`'s bytes, nil when they cannot be read.
    private static func digest(of source: Source) -> String? {
        switch source {
        case .data(let data): SHA256.hash(data: data).hexString
        case .file(let file): try? FileDigest.sha256(of: file)
        }
    }

    private static func fill(_ file: FileDescriptor, from source: Source) throws {
        switch source {
        case .data(let data):
            try data.withUnsafeBytes { _ = try file.writeAll($0) }
        case .file(let input):
            if LinuxFileCalls.clone(input, into: file) { return }
            if try LinuxFileCalls.copyInKernel(input, into: file) { return }
            try copyByReading(input, into: file)
        }
    }

    private static func copyByReading(_ input: FileDescriptor, into output: FileDescriptor) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let count = try input.read(fromAbsoluteOffset: offset, into: buffer)
            if count == 0 { return }
            _ = try output.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
    }

    /// Whether the regular file `name` holds bytes with this SHA-256.
    private static func holds(_ sha256: String, _ name: String, in folder: Directory) -> Bool {
        guard let file = try? folder.openFile(name) else { return false }
        defer { try? file.close() }
        return (try? FileDigest.sha256(of: file)) == sha256
    }
}

/// Why an output was not written, beyond what the system says.
public enum OutputFileError: UserFacingError, Equatable {
    /// A device node, FIFO, socket or folder stands where the output would go.
    case notARegularFile(String)

    public var message: String {
        switch self {
        case .notARegularFile(let path): "\(TerminalText.sanitized(path)): not a regular file; not replaced"
        }
    }

    public var exitStatus: ExitStatus { .output }
}
