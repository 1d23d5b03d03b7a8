#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The enumerated list of images that the browser shows as tabs and that commands accept by name.
public struct Catalog: Sendable, Equatable {
    /// The images in the order the catalog lists them.
    public var images: [AppImage]
    /// Where the next page of a paged remote catalog is, if there is one still to load.
    public var next: URL?
    /// Where the catalog came from, for messages.
    public var origin: CatalogOrigin

    public init(images: [AppImage], next: URL? = nil, origin: CatalogOrigin) {
        self.images = images
        self.next = next
        self.origin = origin
    }

    /// The two images of the original tutorial app, used when no catalog is given.
    public static let builtIn = Catalog(
        images: [
            AppImage(
                name: "image0", title: "Tutorial image 0",
                url: URL(string: "https://github.com/nhamada/app_dev_tutorial/raw/master/01_DownloadImage/images/image00.jpg")!),
            AppImage(
                name: "image1", title: "Tutorial image 1",
                url: URL(string: "https://github.com/nhamada/app_dev_tutorial/raw/master/01_DownloadImage/images/image01.jpg")!),
        ],
        origin: .builtIn)

    /// The image called `name`, if the catalog has one.
    public func image(named name: String) -> AppImage? {
        images.first { $0.name == name }
    }

    /// The catalog entry whose URL is `url`, if any: lets `list` and `cache ls` name what they show.
    public func image(for url: URL) -> AppImage? {
        let text = url.absoluteString
        return images.first { $0.urlString == text }
    }

    /// This catalog followed by a further page; names must stay unique across pages.
    public func appending(_ page: Catalog) throws(CatalogError) -> Catalog {
        var seen = Set(images.map(\.name))
        for (index, image) in page.images.enumerated() where !seen.insert(image.name).inserted {
            throw CatalogError(
                origin: page.origin, entry: .index(index, name: image.name),
                problem: .duplicateName(image.name))
        }
        return Catalog(images: images + page.images, next: page.next, origin: origin)
    }
}

/// Where a catalog was read from.
public enum CatalogOrigin: Sendable, Equatable, CustomStringConvertible {
    case builtIn
    case file(String)
    case remote(URL)
    /// The files, folders, URLs and names given to `imgview browse`.
    case commandLine

    public var description: String {
        switch self {
        case .builtIn: "built-in catalog"
        case .commandLine: "command line"
        case .file(let path): path
        case .remote(let url): url.absoluteString
        }
    }
}
