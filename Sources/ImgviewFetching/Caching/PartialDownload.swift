internal import Crypto
import HTTPTypes
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

/// A download of one URL kept in the cache's `tmp/` as it arrives, so that when it is cut short
/// (Ctrl-C, a kill, a connection lost after the retries) the next fetch asks only for the rest.
///
/// `tmp/partial-<sha256 of URL>` holds the bytes received, in order from the first; beside it,
/// `partial-<…>.json` holds the validators they came with (`Validators`). The metadata exists
/// only while the bytes are worth resuming: the server offered ranges, gave a strong validator
/// and did not compress the body. The body file is `flock`ed while a process writes it; a second
/// process finds it locked and downloads into a file of its own. A partial is never a cache hit:
/// only a whole body, checked, becomes a blob.
package final class PartialDownload: @unchecked Sendable {
    /// What identifies the version of the body the bytes belong to, and how long it is.
    package struct Validators: Codable, Sendable, Equatable {
        package var version = 1
        package var url: String
        /// A strong entity tag, or nil when the server gave only Last-Modified.
        package var etag: String?
        package var lastModified: String?
        /// The whole body's length, when the server said it.
        package var total: Int64?
        package var contentType: String?
        package var startedAt: Date

        enum CodingKeys: String, CodingKey {
            case version, url, etag
            case lastModified = "last_modified"
            case total
            case contentType = "content_type"
            case startedAt = "started_at"
        }

        package init(
            url: String, etag: String? = nil, lastModified: String? = nil, total: Int64? = nil, contentType: String? = nil,
            startedAt: Date
        ) {
            self.url = url
            self.etag = etag
            self.lastModified = lastModified
            self.total = total
            self.contentType = contentType
            self.startedAt = startedAt
        }

        /// The `If-Range` value: the entity tag, else the date (RFC 9110 §13.1.5).
        package var ifRange: String? { etag ?? lastModified }
    }

    /// The bytes' file, written through as any download's; never removed when dropped.
    package let file: TemporaryFile
    let folder: Directory
    let name: String
    var metadataName: String { name + ".json" }
    /// Bytes already there from an earlier transfer and the validators they came with, when a
    /// range can be asked for; nil when the download starts from nothing.
    package private(set) var resumable: (count: Int64, validators: Validators)?
    /// Holds the `flock` until the name is released, after the file itself was closed.
    private let lockDescriptor: Int32

    /// Partials not written for this long are removed by `prune`.
    package static let maximumAge: TimeInterval = 7 * 86_400
    static let prefix = "partial-"

    /// The partial of `url` in `folder`, created empty if there is none; nil when another process
    /// is writing it (or it cannot be opened): that download goes into a file of its own.
    init?(url: URL, in folder: Directory, decoder: JSONDecoder) {
        let name = Self.prefix + SHA256.hash(data: Data(url.absoluteString.utf8)).hexString
        guard let locking = Self.lockedFile(name, in: folder, creating: true) else { return nil }
        let writing = dup(locking.rawValue)
        guard writing >= 0 else {
            try? locking.close()
            return nil
        }
        self.folder = folder
        self.name = name
        self.lockDescriptor = locking.rawValue
        self.file = TemporaryFile(adopting: writing, name: name, in: folder)
        let size = (try? Stat(locking))?.size ?? 0
        if size > 0,
            let validators = SmallFileReader(folder: folder).read(
                name + ".json",
                { bytes, _ in
                    try? decoder.decode(Validators.self, from: Data(buffer: bytes))
                }),
            validators.url == url.absoluteString, validators.ifRange != nil,
            size < (validators.total ?? .max)
                || size == validators.total
        {
            resumable = (size, validators)
            _ = lseek(writing, 0, SEEK_END)
        } else {
            if size > 0 { _ = ftruncate(writing, 0) }
            folder.removeItem(metadataName)
        }
    }

    deinit {
        close(lockDescriptor)
    }

    /// The partial's file `name` of `folder`, opened (made if missing, when `creating`) and locked,
    /// while that name still leads to it; nil when another process holds it, or it is not there.
    ///
    /// Between the open and the lock, `cache clear` may have removed the name, or the process
    /// that finished the file may have: a lock on that file locks nothing anyone else sees, and
    /// bytes written there could never be linked. So the name is checked against the locked file
    /// (and opened again when it has moved on). Whoever removes a partial's name does so holding
    /// this lock, so the name cannot change while it is held.
    static func lockedFile(_ name: String, in folder: Directory, creating: Bool) -> FileDescriptor? {
        for _ in 0..<4 {
            guard let file = try? folder.openRegular(name, flags: creating ? O_RDWR | O_CREAT : O_RDONLY) else { return nil }
            guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else {
                try? file.close()
                return nil
            }
            if let locked = try? Stat(file), let named = folder.status(of: name),
                locked.inode == named.inode, locked.deviceID == named.deviceID
            {
                return file
            }
            try? file.close()
        }
        return nil
    }

    /// Whether a response's bytes are worth keeping for a later range request: a whole 200 that
    /// offers byte ranges, with a strong validator, not compressed.
    package static func validators(for head: ResponseHead, url: URL, now: Date) -> Validators? {
        guard head.status == 200, head[.acceptRanges]?.lowercased().contains("bytes") == true else { return nil }
        let encoding = head[.contentEncoding]?.trimmingSpaces().lowercased()
        guard encoding == nil || encoding == "identity" else { return nil }
        let etag = head[.eTag]?.trimmingSpaces()
        // A weak tag cannot be used in If-Range, and then neither can a date (RFC 9110 §13.1.5).
        if let etag, etag.hasPrefix("W/") || etag.isEmpty { return nil }
        let lastModified = head[.lastModified]?.trimmingSpaces()
        guard etag != nil || lastModified.flatMap(HTTPDate.date(from:)) != nil else { return nil }
        return Validators(
            url: url.absoluteString, etag: etag, lastModified: etag == nil ? lastModified : nil, total: head.expectedLength,
            contentType: head[.contentType], startedAt: now)
    }

    /// The whole length a 206 continues `count` bytes to, when it is that continuation: bytes from
    /// exactly `count`, the length recorded, the same entity tag, not compressed.
    package static func continuation(_ head: ResponseHead, of count: Int64, _ validators: Validators) -> Int64?? {
        let encoding = head[.contentEncoding]?.trimmingSpaces().lowercased()
        guard encoding == nil || encoding == "identity",
            let range = head[.contentRange].flatMap(ContentRange.init), range.first == count
        else { return nil }
        if let total = validators.total, range.complete != total { return nil }
        if let etag = head[.eTag]?.trimmingSpaces(), let kept = validators.etag, etag != kept { return nil }
        if let length = head.expectedLength, let first = range.first, let last = range.last, length != last - first + 1 { return nil }
        return .some(range.complete)
    }

    /// A new body begins: the bytes before go, and `validators` (nil: not resumable) are recorded.
    func restart(with validators: Validators?, encoder: JSONEncoder) throws {
        resumable = nil
        // Only a file with bytes is truncated: ext4 flushes a file truncated to nothing when it is
        // closed (auto_da_alloc), which stalls a large body's restart (DECISIONS.md, "The 100 MB download").
        if (try? Stat(FileDescriptor(rawValue: file.descriptor)))?.size ?? 1 > 0 { _ = ftruncate(file.descriptor, 0) }
        _ = lseek(file.descriptor, 0, SEEK_SET)
        guard let validators, let data = try? encoder.encode(validators) else {
            folder.removeItem(metadataName)
            return
        }
        // Not fsynced: after a power cut the body file's size, checked against the 206, decides.
        try AtomicFile.write(data, as: metadataName, in: folder, sync: false)
    }

    /// Whether the bytes stay for a later fetch when this one fails.
    var isWorthKeeping: Bool {
        folder.status(of: metadataName) != nil
    }

    /// Gives up the bytes: both names go.
    package func discard() {
        folder.removeItem(metadataName)
        folder.removeItem(name)
    }

    /// The whole body, finished: a private name for it (the caller's, as a download's temporary
    /// file is), and the partial's names go, so no later fetch mistakes it for a part.
    func complete() throws -> TemporaryFile {
        let owned: TemporaryFile
        do {
            owned = try TemporaryFile(linking: name, in: folder, into: folder)
        } catch {
            throw FileSystemError(operation: "link", path: folder.path + "/" + name, errno: error.rawValue)
        }
        discard()
        return owned
    }

    /// Whether `name` in the cache's `tmp/` is a partial's (bytes or metadata).
    package static func isPartial(_ name: String) -> Bool {
        name.hasPrefix(prefix)
    }
}

extension DiskCache {
    /// The partial download of `url`, to write a new body into or continue the one it holds; nil
    /// for a read-only cache, or when another process is writing it.
    package func partial(for url: URL) -> PartialDownload? {
        guard !isReadOnly else { return nil }
        return PartialDownload(url: url, in: temporaryFolder, decoder: Self.decoder)
    }
}
