/// How the disk cache has answered, summed over every process that has used it (`cache stats`).
///
/// Each request that consults the disk cache counts once: a hit (served from disk without the
/// network), a revalidation (stale, and the server said 304), or a miss (not cached, damaged, or
/// changed on the server; also an `--offline` request for something not cached). Requests that
/// bypass the cache, cancelled ones and the memory cache's hits are not counted. Evictions are
/// entries removed to keep within the size limit or by `cache prune`.
public struct CacheCounters: Sendable, Codable, Equatable {
    public var hits: Int64
    public var misses: Int64
    public var revalidations: Int64
    public var evictions: Int64

    public init(hits: Int64 = 0, misses: Int64 = 0, revalidations: Int64 = 0, evictions: Int64 = 0) {
        self.hits = hits
        self.misses = misses
        self.revalidations = revalidations
        self.evictions = evictions
    }

    public static let zero = CacheCounters()

    public static func + (lhs: CacheCounters, rhs: CacheCounters) -> CacheCounters {
        CacheCounters(
            hits: lhs.hits &+ rhs.hits, misses: lhs.misses &+ rhs.misses, revalidations: lhs.revalidations &+ rhs.revalidations,
            evictions: lhs.evictions &+ rhs.evictions)
    }
}
