import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `cache ls` prints: one row per entry, most recently used first, in three forms.
///
/// A table for a person at a terminal (human sizes and ages, fitted to the width), tab-separated
/// lines for scripts (exact bytes, ISO 8601 UTC times, `-` for nothing, no header), and JSON.
/// Every string from a server or catalog is sanitised before it reaches any of them.
public struct CacheListing: Sendable {
    /// One entry as printed.
    public struct Row: Sendable, Equatable {
        /// The catalog name whose URL this is, if any.
        public var name: String?
        public var entry: CacheEntry
    }

    public let rows: [Row]
    /// Downloads cut short, kept to be continued (after the entries, as they are not images yet).
    public let partials: [(name: String?, partial: PartialSummary)]
    public let now: Date
    /// The sizes of the thumbnails kept for each body, by its SHA-256.
    public let thumbnails: [String: [Int]]

    /// `entries` and `partials` in the order given; `names` maps catalog URLs to their names.
    public init(
        entries: [CacheEntry], partials: [PartialSummary] = [], names: [URL: String], now: Date, thumbnails: [String: [Int]] = [:]
    ) {
        self.thumbnails = thumbnails
        self.rows = entries.map { Row(name: names[$0.url], entry: $0) }
        self.partials = partials.map { (names[$0.url], $0) }
        self.now = now
    }

    /// How much of a partial is there: `partial 37%`, or `partial 12 MB` without a known total.
    public static func partialState(_ partial: PartialSummary) -> String {
        partial.percent.map { "partial \($0)%" } ?? "partial \(ByteCount.format(partial.received))"
    }

    /// The columns, for the README and `--help`.
    public static let plainColumns =
        "name, url, bytes, format, pixel size (WxH), fetched, last used, fresh|stale|partial N%, fresh until, etag"

    /// The human table, fitted to `width` columns: URLs lose their middles, then ETag, fetched and
    /// last used go (the order already tells recency), then URLs shrink further.
    public func table(width: Int) -> String {
        let header = ["NAME", "URL", "SIZE", "IMAGE", "FETCHED", "USED", "STATE", "ETAG"]
        let cells = rows.map { row -> [String] in
            let entry = row.entry
            var image = entry.format.displayName
            if let size = entry.dimensions { image += " \(size.width)×\(size.height)" }
            let state =
                entry.isFresh(at: now)
                ? "fresh for \(DurationText.format(entry.freshUntil.timeIntervalSince(now)))"
                : "stale for \(DurationText.format(now.timeIntervalSince(entry.freshUntil)))"
            return [
                row.name ?? "-", Self.clean(entry.url.absoluteString), ByteCount.format(entry.byteCount), image,
                DurationText.format(now.timeIntervalSince(entry.fetchedAt)) + " ago",
                DurationText.format(now.timeIntervalSince(entry.lastAccessedAt)) + " ago", state,
                TextTable.elidingMiddle(entry.etag.map(Self.clean) ?? "-", toWidth: 24),
            ]
        }
        let partialCells = partials.map { item -> [String] in
            let partial = item.partial
            return [
                item.name ?? "-", Self.clean(partial.url.absoluteString), ByteCount.format(partial.received), "-",
                DurationText.format(now.timeIntervalSince(partial.startedAt)) + " ago",
                DurationText.format(now.timeIntervalSince(partial.updatedAt)) + " ago", Self.partialState(partial),
                TextTable.elidingMiddle(partial.etag.map(Self.clean) ?? "-", toWidth: 24),
            ]
        }
        return TextTable(header: header, rows: cells + partialCells).rendered(
            width: width, elastic: 1, minimumElasticWidth: 24, droppable: [7, 4, 5])
    }

    /// Tab-separated, one line per entry, no header; the columns are `plainColumns`.
    public var plain: String {
        var text = ""
        text.reserveCapacity(rows.count * 300)
        for row in rows {
            let entry = row.entry
            let fields = [
                row.name ?? "-", Self.clean(entry.url.absoluteString), String(entry.byteCount), entry.format.rawValue,
                entry.dimensions.map { "\($0.width)x\($0.height)" } ?? "-", ISOTimestamp.string(from: entry.fetchedAt),
                ISOTimestamp.string(from: entry.lastAccessedAt), entry.isFresh(at: now) ? "fresh" : "stale",
                ISOTimestamp.string(from: entry.freshUntil), entry.etag.map(Self.clean) ?? "-",
            ]
            text += fields.joined(separator: "\t")
            text += "\n"
        }
        // A partial: its bytes so far, no format or size yet, started and last written, `partial N%`.
        for (name, partial) in partials {
            let fields = [
                name ?? "-", Self.clean(partial.url.absoluteString), String(partial.received), "-", "-",
                ISOTimestamp.string(from: partial.startedAt), ISOTimestamp.string(from: partial.updatedAt),
                Self.partialState(partial), "-", partial.etag.map(Self.clean) ?? "-",
            ]
            text += fields.joined(separator: "\t")
            text += "\n"
        }
        return text
    }

    /// `{"entries": [...]}`; every key is always present, `null` when there is no value. See the README.
    public func json() -> Data {
        var text = "{\"entries\": ["
        text.reserveCapacity(rows.count * 600)
        for (index, row) in rows.enumerated() {
            let entry = row.entry
            text += index == 0 ? "\n  {" : ",\n  {"
            text += "\"name\": \(JSONText.string(row.name))"
            text += ", \"url\": \(JSONText.string(Self.clean(entry.url.absoluteString)))"
            text += ", \"final_url\": \(JSONText.string(Self.clean(entry.finalURL.absoluteString)))"
            text += ", \"bytes\": \(entry.byteCount)"
            text += ", \"format\": \(JSONText.string(entry.format.rawValue))"
            text += ", \"width\": \(entry.dimensions.map { String($0.width) } ?? "null")"
            text += ", \"height\": \(entry.dimensions.map { String($0.height) } ?? "null")"
            text += ", \"sha256\": \(JSONText.string(entry.sha256))"
            text += ", \"content_type\": \(JSONText.string(entry.contentType.map(Self.clean)))"
            text += ", \"etag\": \(JSONText.string(entry.etag.map(Self.clean)))"
            text += ", \"last_modified\": \(JSONText.string(entry.lastModified.map(Self.clean)))"
            text += ", \"fetched_at\": \"\(ISOTimestamp.string(from: entry.fetchedAt))\""
            text += ", \"last_used_at\": \"\(ISOTimestamp.string(from: entry.lastAccessedAt))\""
            text += ", \"fresh_until\": \"\(ISOTimestamp.string(from: entry.freshUntil))\""
            text += ", \"fresh\": \(entry.isFresh(at: now))"
            text += ", \"revalidations\": \(entry.revalidations)"
            text += ", \"thumbnails\": [\((thumbnails[entry.sha256] ?? []).map(String.init).joined(separator: ", "))]}"
        }
        text += rows.isEmpty ? "]" : "\n]"
        text += ", \"partials\": ["
        for (index, (name, partial)) in partials.enumerated() {
            text += index == 0 ? "\n  {" : ",\n  {"
            text += "\"name\": \(JSONText.string(name))"
            text += ", \"url\": \(JSONText.string(Self.clean(partial.url.absoluteString)))"
            text += ", \"bytes\": \(partial.received)"
            text += ", \"total_bytes\": \(partial.total.map(String.init) ?? "null")"
            text += ", \"percent\": \(partial.percent.map(String.init) ?? "null")"
            text += ", \"etag\": \(JSONText.string(partial.etag.map(Self.clean)))"
            text += ", \"last_modified\": \(JSONText.string(partial.lastModified.map(Self.clean)))"
            text += ", \"started_at\": \"\(ISOTimestamp.string(from: partial.startedAt))\""
            text += ", \"updated_at\": \"\(ISOTimestamp.string(from: partial.updatedAt))\"}"
        }
        text += partials.isEmpty ? "]}\n" : "\n]}\n"
        return Data(text.utf8)
    }

    private static func clean(_ text: String) -> String {
        TerminalText.sanitized(text)
    }
}
