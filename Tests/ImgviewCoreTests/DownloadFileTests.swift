import Crypto
import Foundation
import Synchronization
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
        let body = fakePNG(size: 2 * BlobWriter.blockSize + 12_345, seed: 9)
        let reports = Mutex<[Int64]>([])
        let writer = BlobWriter(
            file: try TemporaryFile(in: folder), url: URL(string: "http://h/a.png")!, limit: 1 << 30,
            progress: { received, _ in reports.withLock { $0.append(received) } })
        try writer.receive(ResponseHead(status: 200, headers: [:], url: URL(string: "http://h/a.png")!, expectedLength: Int64(body.count)))
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
}
