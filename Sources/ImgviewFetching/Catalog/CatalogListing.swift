import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `list` prints: one row per catalog image with its cache state, in three forms.
///
/// A table for a person at a terminal (fitted to its width: URLs lose their middles, then titles
/// go), tab-separated lines for scripts (no header, no padding, `-` for no title), and JSON in
/// the catalog format. Titles and URLs are sanitised before they reach any of them.
public struct CatalogListing: Sendable {
    public let catalog: Catalog
    /// One per image, in order.
    public let states: [CacheState]

    public init(catalog: Catalog, states: [CacheState]) {
        precondition(states.count == catalog.images.count, "one cache state per image")
        self.catalog = catalog
        self.states = states
    }

    /// The columns of `plain`, for the README and `--help`.
    public static let plainColumns = "name, title (- when none), url, cached (fresh, stale or no)"

    /// The human table, fitted to `width` columns.
    public func table(width: Int) -> String {
        let rows = catalog.images.indices.map { index -> [String] in
            let image = catalog.images[index]
            return [
                image.name, image.title.map(TerminalText.sanitized) ?? "", TerminalText.sanitized(image.urlString),
                states[index].rawValue,
            ]
        }
        return TextTable(header: ["NAME", "TITLE", "URL", "CACHED"], rows: rows)
            .rendered(width: width, elastic: 2, minimumElasticWidth: 24, droppable: [1])
    }

    /// Tab-separated, one line per image, no header; the columns are `plainColumns`.
    public var plain: String { plain(catalog.images.indices) }

    /// The lines of `plain` for the images in `range`, to write a long listing a piece at a time.
    public func plain(_ range: Range<Int>) -> String {
        var text = ""
        text.reserveCapacity(range.count * 120)
        for index in range {
            let image = catalog.images[index]
            text += image.name
            text += "\t"
            text += image.title.map(TerminalText.sanitized) ?? "-"
            text += "\t"
            text += TerminalText.sanitized(image.urlString)
            text += "\t"
            text += states[index].rawValue
            text += "\n"
        }
        return text
    }

    /// The catalog format with `"cached"` and `"fresh"` added to each image, and a newline.
    public func json() -> Data {
        catalog.jsonData(cacheStates: states) + Data("\n".utf8)
    }
}
