#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An image a web page shows or links to, resolved against the page's base URL.
public struct PageImage: Sendable, Equatable {
    /// An absolute http(s) URL, without a fragment.
    public let url: URL
    /// The `alt` (else `title`) text of the `img` that shows it, when there is one.
    public var title: String?

    public init(url: URL, title: String? = nil) {
        self.url = url
        self.title = title
    }
}

/// A web page as `get --page` and the browser read it: its images in page order.
public struct WebPage: Sendable, Equatable {
    /// The URL asked for.
    public let url: URL
    /// Where the page was found after redirects: what its references resolve against (unless it has a `<base>`).
    public let finalURL: URL
    /// The text of its `<title>`, spaces collapsed.
    public let title: String?
    /// At most `PageScanner.maxImages`, without duplicates, in the order the page names them.
    public let images: [PageImage]
    /// Whether the page was read only in part: it was larger than `PageReader.maxPageBytes`, or
    /// named more than `PageScanner.maxImages` images.
    public let isCut: Bool

    public init(url: URL, finalURL: URL, title: String?, images: [PageImage], isCut: Bool) {
        self.url = url
        self.finalURL = finalURL
        self.title = title
        self.images = images
        self.isCut = isCut
    }
}
