/// What `cache clear` or `cache prune` removed, for the line they print.
public struct RemovalReport: Sendable, Equatable {
    /// The entries removed, least recently used first (for `clear` without names: only counted, see `entryCount`).
    public var entries: [CacheEntry] = []
    /// How many entries were removed.
    public var entryCount = 0
    /// Blobs that no entry referenced any more (left by a killed process, or by the entries removed).
    public var unreferencedBlobs = 0
    /// Temporary files of downloads or metadata writes whose process is gone.
    public var abandonedFiles = 0
    /// Bytes of blobs and temporary files deleted.
    public var freedBytes: Int64 = 0

    public init() {}
}
