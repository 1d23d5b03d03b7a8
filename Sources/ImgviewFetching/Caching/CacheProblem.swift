#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One thing `cache verify` found wrong in the cache, and removed.
public struct CacheProblem: Sendable, Equatable {
    /// What was wrong; the raw values are the `kind` of `cache verify --json`.
    public enum Kind: String, Sendable, CaseIterable {
        /// The blob's bytes no longer hash to the entry's SHA-256; the blob and its entries go.
        case damagedBlob = "damaged-blob"
        /// The entry's blob is gone; the entry goes.
        case missingBlob = "missing-blob"
        /// A metadata file that does not parse as an entry, or is not under its URL's name.
        case unreadableEntry = "unreadable-entry"
        /// A link, FIFO, device node, socket or folder where a file belongs (or a non-folder among the
        /// blob shards), or a hard link where a file the cache writes in place belongs; removed
        /// itself, never followed.
        case notAFile = "not-a-file"
        /// A counters file that does not parse; the counters start again from zero.
        case unreadableCounters = "unreadable-counters"
    }

    public var kind: Kind
    /// The file removed, relative to the cache folder (`v1/blobs/ab/ab…`).
    public var path: String
    /// The entry's URL, when the problem belongs to one.
    public var url: URL?
    /// What exactly was wrong, in a few words.
    public var detail: String

    public init(kind: Kind, path: String, url: URL? = nil, detail: String) {
        self.kind = kind
        self.path = path
        self.url = url
        self.detail = detail
    }
}

/// What `cache verify` checked, and what it found and removed.
public struct VerifyReport: Sendable, Equatable {
    /// Entries whose metadata was read.
    public var entries = 0
    /// Blobs rehashed.
    public var blobs = 0
    /// Bytes rehashed.
    public var bytes: Int64 = 0
    public var problems: [CacheProblem] = []
    /// Temporary files of processes that are gone, removed as upkeep (not damage: a `kill -9` leaves them).
    public var abandonedFiles = 0
    /// Blobs no entry referenced, removed as upkeep (a process stopped between a blob and its entry leaves one).
    public var orphanedBlobs = 0
    /// Their bytes.
    public var orphanedBytes: Int64 = 0
    /// Thumbnails of bodies whose blob is there.
    public var thumbnails = 0
    /// Thumbnails whose body has no blob or no entry (or files that are no thumbnail), removed as upkeep.
    public var orphanedThumbnails = 0

    public init() {}
}
