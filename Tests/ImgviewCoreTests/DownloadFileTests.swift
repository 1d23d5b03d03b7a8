import Crypto
import Foundation
import Testing

@testable import ImgviewCore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Download files: block writes and linked outputs")
struct DownloadFileTests {
    /// Odd chunk sizes around the block size, so blocks fill in the middle of chunks and a remainder is left.
    @Test func bodiesWrittenInBlocksKeepEveryByteAndTheirHash() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = fakePNG(size: 2 * HashingFileWriter.blockSize + 12_345, seed: 9)
        let reports = Locked<[Int64]>([])
        let writer = BlobWriter(
            file: try TemporaryFile(in: folder), url: URL(string: "http://h/a.png")!, limit: 1 << 30,
            progress: { received, _ in reports.withLock { $0.append(received) } })
        try writer.receive(ResponseHead(status: 200, fields: [:], url: URL(string: "http://h/a.png")!, expectedLength: Int64(body.count)))
        var offset = 0
        var size = 7
        while offset < body.count {
            let end = min(body.count, offset + size)
            try writer.receive(body.subdata(in: offset..<end))
            offset = end
            size = size * 3 % 40_000 + 1
        }
        try writer.finish()

        #expect(try Data(contentsOf: writer.file.url) == body)
        #expect(writer.digest() == SHA256.hash(data: body).hexString)
        #expect(writer.prefix == body.prefix(16))
        #expect(writer.received == Int64(body.count))
        let received = reports.withLock { $0 }
        #expect(received.first == 0)
        #expect(received.last == Int64(body.count))
        #expect(received == received.sorted())
        // Reported in steps, not once per chunk.
        #expect(received.count < body.count / Int(BlobWriter.progressStep) + 3)
    }

    /// Bytes handed over in place (the libcurl loader's way) end up the same as chunks of `Data`.
    @Test func bytesReceivedInPlaceAreWrittenAndHashedLikeData() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = fakePNG(size: 3 * HashingFileWriter.blockSize + 777, seed: 3)
        let writer = BlobWriter(file: try TemporaryFile(in: folder), url: URL(string: "http://h/a.png")!, limit: 1 << 30, progress: nil)
        try writer.receive(ResponseHead(status: 200, fields: [:], url: URL(string: "http://h/a.png")!, expectedLength: nil))
        try body.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 16_384) {
                try writer.receive(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 16_384)]))
            }
        }
        try writer.finish()
        #expect(try Data(contentsOf: writer.file.url) == body)
        #expect(writer.digest() == SHA256.hash(data: body).hexString)
    }

    /// A write that fails (here: a full disk, the file swapped for /dev/full) stops the body at the next full block.
    @Test func aFailedWriteStopsTheBody() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try TemporaryFile(in: folder)
        let writer = BlobWriter(file: file, url: URL(string: "http://h/a.png")!, limit: 1 << 30, progress: nil)
        try writer.receive(ResponseHead(status: 200, fields: [:], url: URL(string: "http://h/a.png")!, expectedLength: nil))
        let full = open("/dev/full", O_WRONLY)
        #expect(full >= 0 && dup2(full, file.descriptor) == file.descriptor)
        close(full)
        #expect(throws: FileSystemError.self) {
            try writer.receive(fakePNG(size: HashingFileWriter.blockSize + 1))
        }
    }

    @Test func aLinkedOutputSharesTheSourceAndNeverClobbers() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("blob")
        try Data("image bytes".utf8).write(to: source)
        let destination = folder.appendingPathComponent("out.jpg")

        try AtomicFile.publish(linking: source, to: destination, replace: false)
        #expect(try Data(contentsOf: destination) == Data("image bytes".utf8))
        #expect(try inode(destination) == inode(source))

        try Data("other".utf8).write(to: folder.appendingPathComponent("other"))
        #expect(throws: FileSystemError.self) {
            try AtomicFile.publish(linking: folder.appendingPathComponent("other"), to: destination, replace: false)
        }
        #expect(try Data(contentsOf: destination) == Data("image bytes".utf8))

        try AtomicFile.publish(linking: folder.appendingPathComponent("other"), to: destination, replace: true)
        #expect(try Data(contentsOf: destination) == Data("other".utf8))
        #expect(try Data(contentsOf: source) == Data("image bytes".utf8))
        // Replacing a file with a link to the same file changes nothing and leaves no staging name.
        try AtomicFile.publish(linking: folder.appendingPathComponent("other"), to: destination, replace: true)
        #expect(try Data(contentsOf: destination) == Data("other".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["blob", "other", "out.jpg"])
    }

    /// /dev/shm is a tmpfs, another file system than the temporary folder's here: a link fails with EXDEV.
    @Test(.enabled(if: Self.shmIsAnotherFileSystem())) func acrossFileSystemsTheOutputIsACopy() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("blob")
        try Data("image bytes".utf8).write(to: source)
        let destination = URL(fileURLWithPath: "/dev/shm/imgview-\(UUID().uuidString).jpg")
        defer { unlink(destination.path) }

        try AtomicFile.publish(linking: source, to: destination, replace: false)
        #expect(try Data(contentsOf: destination) == Data("image bytes".utf8))
        #expect(try inode(destination) != inode(source))
    }

    private func inode(_ url: URL) throws -> UInt {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw FileSystemError(operation: "stat", path: url.path, errno: errno) }
        return UInt(info.st_ino)
    }

    static func shmIsAnotherFileSystem() -> Bool {
        var shm = stat()
        var temporary = stat()
        return stat("/dev/shm", &shm) == 0 && access("/dev/shm", W_OK) == 0
            && stat(FileManager.default.temporaryDirectory.path, &temporary) == 0 && shm.st_dev != temporary.st_dev
    }
}
