#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Takes the images a page shows or links from its elements, in page order, as the parser meets them.
///
/// What counts (as a browser shows it, and as gallery downloaders take it): `img` (the largest
/// `srcset` candidate, else `src`; `data-src`/`data-srcset`/`data-original` when `src` is missing
/// or a `data:` placeholder), `picture` (the first `source` without `media` of a type imgview
/// decodes, else its `img`), `og:image` and `twitter:image`, and links whose path ends in an image
/// extension. References resolve against the first `<base href>`, else the page's final URL;
/// only http(s) is kept, fragments dropped, duplicates (scheme and host in any case, a default
/// port written or not) keep their first place; elements inside `template` are not shown, so
/// not taken.
public final class PageScanner: HTMLElementHandling {
    /// Images taken from one page at most.
    public static let maxImages = 1000

    public private(set) var images: [PageImage] = []
    /// The page's `<title>`, spaces collapsed.
    public var title: String? {
        let words = titleText.split(whereSeparator: \.isWhitespace)
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
    /// Whether the page named more images than `maxImages`.
    public private(set) var isCut = false

    private var base: URL
    private var hasBase = false
    private var keys: Set<String> = []
    private var templateDepth = 0
    private var inPicture = false
    /// The image a `picture`'s `source` gave, whose title its `img` supplies.
    private var pictureImage: Int?
    private var pictureDone = false
    private var inTitle = false
    private var titleText = ""
    private var hasTitle = false

    /// Types of `picture` sources imgview can show.
    static let decodableTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/bmp"]
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "gif", "webp", "avif", "bmp", "heic", "heif", "jxl", "tif", "tiff", "svg", "ico", "qoi",
    ]

    /// A scanner for the page found at `url` (after redirects).
    public init(pageURL url: URL) {
        base = url
    }

    public var isSatisfied: Bool { isCut }
    public var wantsText: Bool { inTitle }

    public func text(_ text: String) {
        titleText += text
    }

    public func startElement(_ name: String, attributes: [HTMLAttribute]) {
        if name == "template" { templateDepth += 1 }
        guard templateDepth == 0 else { return }
        func value(_ attribute: String) -> String? {
            attributes.first { $0.name == attribute }?.value
        }
        switch name {
        case "base":
            guard !hasBase, let href = value("href"), let url = resolve(href) else { return }
            base = url
            hasBase = true
        case "title":
            inTitle = !hasTitle
        case "picture":
            inPicture = true
            pictureImage = nil
            pictureDone = false
        case "source" where inPicture && !pictureDone:
            guard value("media") == nil else { return }
            if let type = value("type")?.lowercased().split(separator: ";").first?.trimmingSpaces(),
                !Self.decodableTypes.contains(type)
            {
                return
            }
            guard let reference = Srcset.largest(srcset: value("srcset"), src: nil) else { return }
            pictureImage = add(reference, title: nil)
            pictureDone = true
        case "img":
            let alt = nonEmpty(value("alt")) ?? nonEmpty(value("title"))
            if inPicture, pictureDone {
                if let index = pictureImage, images[index].title == nil { images[index].title = alt }
                return
            }
            var src = value("src")
            if src.map({ $0.trimmingSpaces().isEmpty || $0.trimmingSpaces().lowercased().hasPrefix("data:") }) ?? true {
                src = value("data-src") ?? value("data-original") ?? src
            }
            let srcset = value("srcset") ?? value("data-srcset")
            if let reference = Srcset.largest(srcset: srcset, src: src) { _ = add(reference, title: alt) }
            if inPicture { pictureDone = true }
        case "meta":
            let key = (value("property") ?? value("name"))?.lowercased()
            let keys: Set<String> = ["og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src"]
            guard let key, keys.contains(key), let content = value("content") else { return }
            _ = add(content, title: nil)
        case "a":
            guard let href = value("href"), Self.namesAnImage(href) else { return }
            _ = add(href, title: nonEmpty(value("title")))
        default:
            break
        }
    }

    public func endElement(_ name: String) {
        switch name {
        case "template": templateDepth = max(0, templateDepth - 1)
        case "picture": inPicture = false
        case "title":
            if inTitle { hasTitle = true }
            inTitle = false
        default: break
        }
    }

    /// Whether a link's path (before `?` and `#`) ends in an image extension.
    public static func namesAnImage(_ href: String) -> Bool {
        let path = href.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return imageExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// Adds the image `reference` names, unless it is a duplicate or not http(s); returns its index.
    private func add(_ reference: String, title: String?) -> Int? {
        guard let url = resolve(reference), let key = Self.key(url) else { return nil }
        if let existing = keys.contains(key) ? images.firstIndex(where: { Self.key($0.url) == key }) : nil {
            if images[existing].title == nil { images[existing].title = title }
            return existing
        }
        guard images.count < Self.maxImages else {
            isCut = true
            return nil
        }
        keys.insert(key)
        images.append(PageImage(url: url, title: title))
        return images.count - 1
    }

    /// `reference` as an absolute http(s) URL without a fragment, against the base; nil for
    /// `data:`, `javascript:` and every other scheme.
    private func resolve(_ reference: String) -> URL? {
        let trimmed = reference.trimmingSpaces()
        guard !trimmed.isEmpty, let url = URL(string: trimmed, relativeTo: base)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.host?.isEmpty == false
        else { return nil }
        components.fragment = nil
        return components.url
    }

    /// What makes two URLs the same image: scheme and host in lower case, the default port dropped.
    private static func key(_ url: URL) -> String? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if (components.scheme == "http" && components.port == 80) || (components.scheme == "https" && components.port == 443) {
            components.port = nil
        }
        return components.string
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingSpaces(), !text.isEmpty else { return nil }
        return text
    }
}
