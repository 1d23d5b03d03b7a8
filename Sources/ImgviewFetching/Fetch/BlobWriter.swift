import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Takes a response body into a temporary file, hashing and counting it, and stopping past a size limit.
///
/// A body larger than the cache's largest entry (`maxEntry`) is written but not hashed: the cache
/// will not keep it, so nothing needs its digest, and hashing a body costs about as much as writing it.
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
    /// Bodies longer than this are not hashed (announced so, or once they grow past it).
    private let maxEntry: Int64
    /// Whether a 206 is the body asked for (a range was requested); else it is not kept.
    private let acceptsPartialContent: Bool
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

    /// Where the body goes when the download can be resumed later; `file` is its file then.
    let partial: PartialDownload?
    private let now: Date
    /// The bytes an earlier transfer left, when this one's 206 continues them.
    private(set) var resumedFrom: Int64?
    /// No more bytes are taken: the transfer failed and what arrived was kept for a later one.
    private var isClosed = false

    init(
        file: TemporaryFile, url: URL, limit: Int64, maxEntry: Int64 = .max, acceptsPartialContent: Bool = false, progress: Progress?,
        body: BodyTap? = nil, partial: PartialDownload? = nil, now: Date = Date()
    ) {
        self.file = partial?.file ?? file
        self.url = url
        self.limit = limit
        self.maxEntry = maxEntry
        self.acceptsPartialContent = acceptsPartialContent
        self.progress = progress
        self.body = body
        self.partial = partial
        self.now = now
        self.blocks = HashingFileWriter(file: partial?.file ?? file)
    }

    /// The body's whole length as announced: a 206's from its Content-Range.
    var expectedTotal: Int64? {
        lock.withLock { expectedForProgress }
    }

    deinit {
        // A block taken but never handed back (the transfer failed part way) is ours to free.
        gatherer.drop()?.deallocate()
    }

    func receive(_ head: ResponseHead) throws {
        // Only a successful body is worth writing; for errors the status is all we need.
        let keeping = (200..<300).contains(head.status) && (head.status != 206 || acceptsPartialContent)
        var expected = head.uncompressedLength
        var start: Int64 = 0
        if keeping, let partial {
            if head.status == 206 {
                // Only a continuation of exactly the bytes kept, of the same version, is appended.
                guard let (count, validators) = partial.resumable, let total = PartialDownload.continuation(head, of: count, validators)
                else {
                    throw ResumeRejected()
                }
                start = count
                expected = total
            } else {
                try partial.restart(
                    with: PartialDownload.validators(for: head, url: url, now: now), encoder: DiskCache.encoder)
            }
        }
        lock.withLock {
            self.head = head
            isKeeping = keeping
            expectedForProgress = expected
            received = start
            reported = start
            resumedFrom = start > 0 ? start : nil
        }
        guard keeping else { return }
        if let expected, expected > limit {
            throw ImagePipelineError.tooLarge(url, limit: limit)
        }
        if let expected, expected > maxEntry { lock.withLock { blocks.stopHashing() } }
        // Progress first: it tells `get` how large the body is before any byte reaches the body tap.
        progress?(start, expected)
        if start > 0 { try absorbExisting(start) }
    }

    /// A 416 to a range asked for from the end of the kept bytes, saying the body has just that
    /// many: they are the whole body. Takes them as if they had arrived.
    func completeFromKeptBytes(_ head: ResponseHead) -> Bool {
        guard head.status == 416, let partial, let (count, validators) = partial.resumable,
            let range = head[.contentRange].flatMap(ContentRange.init), range.first == nil, range.complete == count,
            validators.total == nil || validators.total == count
        else { return false }
        var fields = head.fields
        fields[.contentType] = validators.contentType
        if let etag = validators.etag { fields[.eTag] = etag }
        if let modified = validators.lastModified { fields[.lastModified] = modified }
        let whole = ResponseHead(status: 200, fields: fields, url: head.url, expectedLength: count)
        lock.withLock {
            self.head = whole
            isKeeping = true
            expectedForProgress = count
            received = count
            reported = count
            resumedFrom = count
        }
        if count > maxEntry { lock.withLock { blocks.stopHashing() } }
        return (try? absorbExisting(count)) != nil
    }

    /// Hashes the bytes kept from before and shows them to the body tap, as if they had just come.
    private func absorbExisting(_ count: Int64) throws {
        let tap = body
        try blocks.absorbExisting(count, each: tap == nil ? nil : { offset, bytes in tap?(offset, bytes) })
    }

    /// The transfer failed: writes what is gathered, so a later fetch continues after it, and takes no more.
    func keepWhatArrived() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            if isKeeping { try? flush() }
            try? file.finish()
        }
    }

    func receive(_ chunk: Data) throws {
        try chunk.withUnsafeBytes { try receive(bytes: $0) }
    }

    func receive(bytes chunk: UnsafeRawBufferPointer) throws {
        var offset: Int64 = -1
        let report = try lock.withLock { () throws -> (Int64, Int64?)? in
            if isClosed { throw CancellationError() }
            guard isKeeping else { return nil }
            offset = received
            received += Int64(chunk.count)
            guard received <= limit else { throw ImagePipelineError.tooLarge(url, limit: limit) }
            if received > maxEntry, blocks.isHashing { blocks.stopHashing() }
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

    /// The body's SHA-256, once the transfer is over and `finish` returned; nil for a body over
    /// the largest entry, which was not hashed.
    func digest() -> String? {
        lock.withLock { sha256 }
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

/// A 206 or 416 that does not continue the bytes kept: they are dropped and the body fetched whole.
struct ResumeRejected: Error {}
