import Crypto
import Foundation

/// Takes a response body into a temporary file, hashing and counting it, and stopping past a size limit.
///
/// Chunks arrive on the loader's delegate queue 16 KB at a time (libcurl's largest write). They are
/// gathered into one block and hashed and written a block at a time: a write per chunk cost
/// 6,000 system calls per 100 MB, and a delegate queue that falls behind makes URLSession queue
/// every later chunk in memory (see DECISIONS.md, "Downloads: bodies gathered into 1 MB blocks").
final class BlobWriter: TransferSink, @unchecked Sendable {
    /// Bytes received so far and the total when known; called on the loader's queue.
    typealias Progress = @Sendable (_ received: Int64, _ expected: Int64?) -> Void

    /// How many bytes are gathered before they are hashed and written.
    static let blockSize = 1 << 20
    /// Progress is reported each time this many more bytes arrived (and at the end), not per chunk.
    static let progressStep: Int64 = 64 << 10

    private let lock = NSLock()
    let file: TemporaryFile
    private let url: URL
    private let limit: Int64
    private let progress: Progress?
    private var hasher = SHA256()
    private(set) var head: ResponseHead?
    private(set) var received: Int64 = 0
    /// The body's first bytes, to tell its format.
    private(set) var prefix = Data()
    /// Whether the body is one to keep (a 2xx response); set once the head arrived.
    private var isKeeping = false
    /// The total to show in progress: Content-Length, unless the body is compressed.
    private var expectedForProgress: Int64?
    private var reported: Int64 = 0
    private var block: UnsafeMutableRawBufferPointer?
    private var blockFill = 0

    init(file: TemporaryFile, url: URL, limit: Int64, progress: Progress?) {
        self.file = file
        self.url = url
        self.limit = limit
        self.progress = progress
    }

    deinit {
        block?.deallocate()
    }

    func receive(_ head: ResponseHead) throws {
        // Only a successful body is worth writing; for errors the status is all we need.
        let keeping = (200..<300).contains(head.status)
        let expected = head.uncompressedLength
        lock.withLock {
            self.head = head
            isKeeping = keeping
            expectedForProgress = expected
        }
        guard keeping else { return }
        if let expected, expected > limit {
            throw ImagePipelineError.tooLarge(url, limit: limit)
        }
        progress?(0, expected)
    }

    func receive(_ chunk: Data) throws {
        let report = try lock.withLock { () throws -> (Int64, Int64?)? in
            guard isKeeping else { return nil }
            received += Int64(chunk.count)
            guard received <= limit else { throw ImagePipelineError.tooLarge(url, limit: limit) }
            if prefix.count < 16 { prefix.append(chunk.prefix(16 - prefix.count)) }
            try append(chunk)
            guard received - reported >= Self.progressStep || received == expectedForProgress else { return nil }
            reported = received
            return (received, expectedForProgress)
        }
        if let (total, expected) = report { progress?(total, expected) }
    }

    /// Writes what is still gathered and closes the file; call once the transfer succeeded.
    func finish() throws {
        let report = try lock.withLock { () throws -> (Int64, Int64?)? in
            try flush()
            try file.finish()
            guard isKeeping, received != reported else { return nil }
            reported = received
            return (received, expectedForProgress)
        }
        if let (total, expected) = report { progress?(total, expected) }
    }

    /// The body's SHA-256, once the transfer is over and `finish` returned.
    func digest() -> String {
        lock.withLock { hasher.finalize().hexString }
    }

    /// Copies `chunk` into the block, hashing and writing the block each time it fills. Runs under the lock.
    private func append(_ chunk: Data) throws {
        let block = self.block ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 16)
        self.block = block
        try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let count = min(bytes.count - offset, block.count - blockFill)
                UnsafeMutableRawBufferPointer(rebasing: block[blockFill..<(blockFill + count)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
                blockFill += count
                offset += count
                if blockFill == block.count { try flush() }
            }
        }
    }

    /// Hashes and writes the gathered bytes. Runs under the lock.
    private func flush() throws {
        guard let block, blockFill > 0 else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: block[0..<blockFill])
        blockFill = 0
        hasher.update(bufferPointer: bytes)
        try file.write(bytes)
    }
}
