import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Takes a response body into a temporary file, hashing and counting it, and stopping past a size limit.
///
/// Chunks arrive on the loader's thread 16 KB at a time (libcurl's largest write). They are
/// gathered into 1 MB blocks that a `HashingFileWriter` hashes and writes on another thread while
/// the next block fills: a write per chunk spent the download's time in system calls (see
/// DECISIONS.md, "Downloads: bodies gathered into 1 MB blocks").
final class BlobWriter: TransferSink, @unchecked Sendable {
    /// Bytes received so far and the total when known; called on the loader's queue.
    typealias Progress = @Sendable (_ received: Int64, _ expected: Int64?) -> Void

    /// Progress is reported each time this many more bytes arrived (and at the end), not per chunk.
    static let progressStep: Int64 = 64 << 10

    private let lock = ThreadLock()
    let file: TemporaryFile
    private let url: URL
    private let limit: Int64
    private let progress: Progress?
    /// Sees each chunk as it arrives, for previews of what has come so far.
    private let body: BodyTap?
    private let blocks: HashingFileWriter
    private var sha256: String?
    private(set) var head: ResponseHead?
    private(set) var received: Int64 = 0
    /// Whether the body is one to keep (a 2xx response); set once the head arrived.
    private var isKeeping = false
    /// The total to show in progress: Content-Length, unless the body is compressed.
    private var expectedForProgress: Int64?
    private var reported: Int64 = 0
    /// Fills blocks taken from `blocks`.
    private var gatherer = BlockGatherer()

    init(file: TemporaryFile, url: URL, limit: Int64, progress: Progress?, body: BodyTap? = nil) {
        self.file = file
        self.url = url
        self.limit = limit
        self.progress = progress
        self.body = body
        self.blocks = HashingFileWriter(file: file)
    }

    deinit {
        // A block taken but never handed back (the transfer failed part way) is ours to free.
        gatherer.drop()?.deallocate()
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
        try chunk.withUnsafeBytes { try receive(bytes: $0) }
    }

    func receive(bytes chunk: UnsafeRawBufferPointer) throws {
        var offset: Int64 = -1
        let report = try lock.withLock { () throws -> (Int64, Int64?)? in
            guard isKeeping else { return nil }
            offset = received
            received += Int64(chunk.count)
            guard received <= limit else { throw ImagePipelineError.tooLarge(url, limit: limit) }
            try append(chunk)
            guard received - reported >= Self.progressStep || received == expectedForProgress else { return nil }
            reported = received
            return (received, expectedForProgress)
        }
        if offset >= 0 { body?(offset, chunk) }
        if let (total, expected) = report { progress?(total, expected) }
    }

    /// Writes what is still gathered and closes the file; call once the transfer succeeded.
    func finish() throws {
        let report = try lock.withLock { () throws -> (Int64, Int64?)? in
            try flush()
            sha256 = blocks.finish()
            try file.finish()
            guard isKeeping, received != reported else { return nil }
            reported = received
            return (received, expectedForProgress)
        }
        if let (total, expected) = report { progress?(total, expected) }
    }

    /// The body's SHA-256, once the transfer is over and `finish` returned.
    func digest() -> String {
        lock.withLock { sha256 ?? "" }
    }

    /// Copies `bytes` into blocks, handing each to the writer as it fills. Runs under the lock.
    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        try gatherer.append(bytes, take: blocks.takeBlock) { try blocks.write($0, count: $1) }
    }

    /// Writes the gathered bytes and has them hashed. Runs under the lock.
    private func flush() throws {
        try gatherer.handOn { try blocks.write($0, count: $1) }
    }
}
