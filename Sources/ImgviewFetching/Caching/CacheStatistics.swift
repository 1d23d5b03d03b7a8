import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `cache stats` prints: how full the cache is, how it has answered, its oldest and newest entry.
public struct CacheStatistics: Sendable, Equatable {
    public var entries: Int
    /// Bytes of the blobs the entries reference, each blob counted once.
    public var bytes: Int64
    public var limit: Int64
    public var counters: CacheCounters
    /// The entries fetched longest ago and most recently.
    public var oldest: CacheEntry?
    public var newest: CacheEntry?
    /// Downloads cut short, kept in `tmp/` to be continued, and their bytes so far.
    public var partials: Int
    public var partialBytes: Int64
    /// Thumbnails of cached bodies (a grid's), and their bytes.
    public var thumbnails: Int
    public var thumbnailBytes: Int64

    public init(
        entries: [CacheEntry], counters: CacheCounters, limit: Int64, partials: [PartialSummary] = [],
        thumbnails: (count: Int, bytes: Int64) = (0, 0)
    ) {
        self.thumbnails = thumbnails.count
        thumbnailBytes = thumbnails.bytes
        self.entries = entries.count
        self.partials = partials.count
        partialBytes = partials.reduce(0) { $0 + $1.received }
        bytes = entries.blobSizes.values.reduce(0, +)
        self.limit = limit
        self.counters = counters
        oldest = entries.min { $0.fetchedAt < $1.fetchedAt }
        newest = entries.max { $0.fetchedAt < $1.fetchedAt }
    }

    /// Aligned lines for a person: human sizes and ages.
    public func table(directory: String, now: Date) -> String {
        let percent = limit > 0 ? Double(bytes) * 100 / Double(limit) : 0
        func described(_ entry: CacheEntry?) -> String {
            guard let entry else { return "-" }
            let age = DurationText.format(now.timeIntervalSince(entry.fetchedAt))
            return "\(TerminalText.sanitized(entry.url.absoluteString)) (fetched \(age) ago)"
        }
        let rows = [
            ["directory", TerminalText.sanitized(directory)],
            ["entries", String(entries)],
            // In binary units, as limits are given (`--cache-size 500M` is 500 MiB).
            ["size", "\(ByteCount.formatBinary(bytes)) of \(ByteCount.formatBinary(limit)) (\(String(printf: "%.1f", percent))%)"],
            ["hits", String(counters.hits)],
            ["misses", String(counters.misses)],
            ["revalidations", String(counters.revalidations)],
            ["evictions", String(counters.evictions)],
            ["oldest", described(oldest)],
            ["newest", described(newest)],
            ["partials", partials == 0 ? "none" : "\(partials) (\(ByteCount.formatBinary(partialBytes)) kept to be continued)"],
            ["thumbnails", thumbnails == 0 ? "none" : "\(thumbnails) (\(ByteCount.formatBinary(thumbnailBytes)))"],
        ]
        return rows.map { $0[0].padded(toLength: 15) + $0[1] }.joined(separator: "\n") + "\n"
    }

    /// `key<TAB>value` lines for scripts: exact numbers, ISO 8601 UTC times, `-` for nothing.
    public func plain(directory: String) -> String {
        func fields(_ entry: CacheEntry?) -> String {
            guard let entry else { return "-\t-" }
            return "\(ISOTimestamp.string(from: entry.fetchedAt))\t\(TerminalText.sanitized(entry.url.absoluteString))"
        }
        let rows = [
            ("directory", TerminalText.sanitized(directory)), ("entries", String(entries)), ("bytes", String(bytes)),
            ("limit", String(limit)), ("hits", String(counters.hits)), ("misses", String(counters.misses)),
            ("revalidations", String(counters.revalidations)), ("evictions", String(counters.evictions)),
            ("oldest", fields(oldest)), ("newest", fields(newest)), ("partials", String(partials)),
            ("partial_bytes", String(partialBytes)), ("thumbnails", String(thumbnails)), ("thumbnail_bytes", String(thumbnailBytes)),
        ]
        return rows.map { "\($0.0)\t\($0.1)" }.joined(separator: "\n") + "\n"
    }

    /// One JSON object; see the README for its keys.
    public func json(directory: String) -> Data {
        func described(_ entry: CacheEntry?) -> String {
            guard let entry else { return "null" }
            return "{\"url\": \(JSONText.string(TerminalText.sanitized(entry.url.absoluteString))), "
                + "\"fetched_at\": \"\(ISOTimestamp.string(from: entry.fetchedAt))\"}"
        }
        let text = """
            {"directory": \(JSONText.string(TerminalText.sanitized(directory))), "entries": \(entries), "bytes": \(bytes), \
            "limit": \(limit), "hits": \(counters.hits), "misses": \(counters.misses), \
            "revalidations": \(counters.revalidations), "evictions": \(counters.evictions), \
            "oldest": \(described(oldest)), "newest": \(described(newest)), "partials": \(partials), \
            "partial_bytes": \(partialBytes), "thumbnails": \(thumbnails), "thumbnail_bytes": \(thumbnailBytes)}

            """
        return Data(text.utf8)
    }
}
