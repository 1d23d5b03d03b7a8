#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One image of the catalog: the name a user types, an optional title, and where it lives.
///
/// The URL is kept as its text and made a `URL` when asked for: a `URL` costs a few hundred bytes
/// and a microsecond to make, which over a 100,000-image catalog that `list` prints and the
/// browser shows ten tabs of was a fifth of the time and a third of the memory.
public struct AppImage: Sendable, Hashable, Encodable {
    /// Short, unique, typed on the command line: `[a-z0-9][a-z0-9._-]*`.
    public let name: String
    /// What the screen shows beside the name; the name stands in when there is none.
    public let title: String?
    /// `url.absoluteString`: what the cache is keyed by and `list` prints.
    public let urlString: String

    public init(name: String, title: String? = nil, url: URL) {
        self.name = name
        self.title = title
        self.urlString = url.absoluteString
    }

    /// An image whose URL text was checked already (`CatalogParser.isPlainWebURL`).
    init(name: String, title: String?, urlString: String) {
        self.name = name
        self.title = title
        self.urlString = urlString
    }

    /// An absolute http, https or file URL.
    public var url: URL {
        // Made from a URL's own absoluteString, which always parses again.
        URL(string: urlString)!
    }

    /// The title when there is one, else the name.
    public var displayTitle: String { title ?? name }

    enum CodingKeys: String, CodingKey { case name, title, url }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(urlString, forKey: .url)
    }
}

extension AppImage {
    /// Whether `name` is a valid catalog name: `[a-z0-9][a-z0-9._-]*`, at most 64 characters.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= maxNameLength else { return false }
        func isLowerAlnum(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard isLowerAlnum(first) else { return false }
        return name.utf8.allSatisfy { isLowerAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// Long names break the tab strip and file names; 64 is plenty for a name typed by hand.
    public static let maxNameLength = 64

    /// The URL schemes a catalog entry may use.
    public static let allowedSchemes: Set<String> = ["http", "https", "file"]
}
