import Crypto
import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Download files: block writes")
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

    /// A body over the largest cache entry is written whole but not hashed: announced so, or
    /// growing past it with no length said.
    @Test(arguments: [true, false])
    func aBodyOverTheLargestEntryIsWrittenWithoutADigest(announced: Bool) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = fakePNG(size: 3 * HashingFileWriter.blockSize + 99, seed: 5)
        let writer = BlobWriter(
            file: try TemporaryFile(in: folder), url: URL(string: "http://h/a.png")!, limit: 1 << 30,
            maxEntry: Int64(HashingFileWriter.blockSize), progress: nil)
        try writer.receive(
            ResponseHead(status: 200, fields: [:], url: URL(string: "http://h/a.png")!, expectedLength: announced ? Int64(body.count) : nil)
        )
        try body.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 16_384) {
                try writer.receive(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 16_384)]))
            }
        }
        try writer.finish()
        #expect(try Data(contentsOf: writer.file.url) == body)
        #expect(writer.digest() == nil)
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
}
