import ImgviewSupport

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

extension RemovalReport {
    /// `removed 3 entries, 1 unreferenced blob, freed 2.1 MB`: the last line `clear` and `prune` print.
    public var summary: String {
        func counted(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        var parts = [counted(entryCount, "entry", "entries")]
        if unreferencedBlobs > 0 { parts.append(counted(unreferencedBlobs, "unreferenced blob", "unreferenced blobs")) }
        if abandonedFiles > 0 { parts.append(counted(abandonedFiles, "abandoned temporary file", "abandoned temporary files")) }
        return "removed \(parts.joined(separator: ", ")), freed \(ByteCount.format(freedBytes))"
    }
}
