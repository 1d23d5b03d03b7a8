import Crypto
import Foundation

/// Takes a response body into a temporary file, hashing and counting it, and stopping past a size limit.
final class BlobWriter: TransferSink, @unchecked Sendable {
    /// Bytes received so far and the total when known; called on the loader's queue.
    typealias Progress = @Sendable (_ received: Int64, _ expected: Int64?) -> Void

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

    init(file: TemporaryFile, url: URL, limit: Int64, progress: Progress?) {
        self.file = file
        self.url = url
        self.limit = limit
        self.progress = progress
    }

    func receive(_ head: ResponseHead) throws {
        lock.withLock { self.head = head }
        // Only a successful body is worth writing; for errors the status is all we need.
        guard (200..<300).contains(head.status) else { return }
        if let expected = head.expectedLength, expected > limit, head.header("content-encoding") == nil {
            throw ImagePipelineError.tooLarge(url, limit: limit)
        }
        progress?(0, head.header("content-encoding") == nil ? head.expectedLength : nil)
    }

    func receive(_ chunk: Data) throws {
        let (total, expected) = try lock.withLock { () throws -> (Int64, Int64?) in
            guard let head, (200..<300).contains(head.status) else { return (received, nil) }
            received += Int64(chunk.count)
            guard received <= limit else { throw ImagePipelineError.tooLarge(url, limit: limit) }
            if prefix.count < 16 { prefix.append(chunk.prefix(16 - prefix.count)) }
            hasher.update(data: chunk)
            try file.write(chunk)
            return (received, head.header("content-encoding") == nil ? head.expectedLength : nil)
        }
        progress?(total, expected)
    }

    /// The body's SHA-256, once the transfer is over.
    func digest() -> String {
        lock.withLock { hasher.finalize().hexString }
    }
}
