import Foundation
import ImgviewTestSupport
import SystemPackage
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `OutputFile`: outputs are files of their own, appear whole, and replace only what may be replaced.
@Suite("Output files")
struct OutputFileTests {
    static let bytes = Data("image bytes".utf8)
    static let sha256 = FileDigestForTests.sha256(bytes)

    /// Publishes the file `source` as `destination`.
    func publish(_ source: URL, to destination: URL, replace: Bool, sha256: String? = sha256) throws -> OutputFile.Outcome {
        let file = try FileDescriptor.open(source.path, .readOnly)
        defer { try? file.close() }
        return try OutputFile.publish(.file(file), byteCount: Int64(Self.bytes.count), sha256: sha256, to: destination, replace: replace)
    }

    @Test func anOutputIsAFileOfItsOwnAndNeverClobbersWithoutReplace() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("blob")
        try Self.bytes.write(to: source)
        let destination = folder.appendingPathComponent("out.jpg")

        #expect(try publish(source, to: destination, replace: false) == .written)
        #expect(try Data(contentsOf: destination) == Self.bytes)
        #expect(try inode(destination) != inode(source))
        // Damage to the source (a cache blob rewritten in place) does not reach the output.
        let handle = try FileHandle(forWritingTo: source)
        try handle.write(contentsOf: Data("XXXXX".utf8))
        try handle.close()
        #expect(try Data(contentsOf: destination) == Self.bytes)

        try Data("mine".utf8).write(to: destination)
        #expect(throws: FileSystemError.self) { try publish(source, to: destination, replace: false) }
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
        try Self.bytes.write(to: source)
        #expect(try publish(source, to: destination, replace: true) == .written)
        #expect(try Data(contentsOf: destination) == Self.bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["blob", "out.jpg"])
    }

    /// The same bytes already there: nothing is written, with or without `replace` (like `wget -N`).
    @Test func anIdenticalFileIsUpToDateAndUntouched() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("blob")
        try Self.bytes.write(to: source)
        let destination = folder.appendingPathComponent("out.jpg")
        try Self.bytes.write(to: destination)
        let before = try inode(destination)
        #expect(try publish(source, to: destination, replace: false) == .upToDate)
        #expect(try publish(source, to: destination, replace: true) == .upToDate)
        #expect(try inode(destination) == before)
        // Without a digest to compare (the browser's `d`), an existing file is never "the same".
        #expect(throws: FileSystemError.self) { try publish(source, to: destination, replace: false, sha256: nil) }
    }

    /// A device node, a FIFO or a folder is never replaced, even with `replace`; a link is replaced
    /// itself, and what it points to is untouched.
    @Test func onlyRegularFilesAndLinksAreReplaced() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("blob")
        try Self.bytes.write(to: source)

        // A copy of /dev/null's node (major 1, minor 3); making one needs root, as CI and this machine run.
        let node = folder.appendingPathComponent("null")
        let hasNode = mknod(node.path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0
        let fifo = folder.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let subfolder = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: false)
        for special in (hasNode ? [node] : []) + [fifo, subfolder] {
            #expect(throws: OutputFileError.notARegularFile(special.path)) { try publish(source, to: special, replace: true) }
        }
        if hasNode { #expect(try fileType(node) == S_IFCHR) }
        #expect(try fileType(fifo) == S_IFIFO)

        let victim = folder.appendingPathComponent("victim")
        try Data("mine".utf8).write(to: victim)
        let link = folder.appendingPathComponent("link.jpg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        #expect(throws: FileSystemError.self) { try publish(source, to: link, replace: false) }
        #expect(try publish(source, to: link, replace: true) == .written)
        #expect(try fileType(link) == S_IFREG)
        #expect(try Data(contentsOf: victim) == Data("mine".utf8))
    }

    /// /dev/shm is a tmpfs, another file system than the temporary folder's here: no clone, no shared storage.
    @Test(.enabled(if: Self.shmIsAnotherFileSystem())) func acrossFileSystemsTheOutputIsACopy() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("blob")
        try Self.bytes.write(to: source)
        let destination = URL(fileURLWithPath: "/dev/shm/imgview-\(UUID().uuidString).jpg")
        defer { unlink(destination.path) }
        #expect(try publish(source, to: destination, replace: false) == .written)
        #expect(try Data(contentsOf: destination) == Self.bytes)
    }

    private func inode(_ url: URL) throws -> UInt {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw FileSystemError(operation: "stat", path: url.path, errno: errno) }
        return UInt(info.st_ino)
    }

    private func fileType(_ url: URL) throws -> mode_t {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw FileSystemError(operation: "stat", path: url.path, errno: errno) }
        return info.st_mode & S_IFMT
    }

    static func shmIsAnotherFileSystem() -> Bool {
        var shm = stat()
        var temporary = stat()
        return stat("/dev/shm", &shm) == 0 && access("/dev/shm", W_OK) == 0
            && stat(FileManager.default.temporaryDirectory.path, &temporary) == 0 && shm.st_dev != temporary.st_dev
    }
}
