import Foundation

/// Turns the bytes of a catalog file or page into a validated `Catalog`.
///
/// Validation is by hand rather than through `Decodable` so every message can name the entry
/// at fault and say what is wrong with it in words a user understands.
public struct CatalogParser: Sendable {
    /// The origin named in errors.
    public let origin: CatalogOrigin
    /// Relative URLs in the catalog resolve against this (the file's folder, or the page's URL).
    public let baseURL: URL?

    public init(origin: CatalogOrigin, baseURL: URL?) {
        self.origin = origin
        self.baseURL = baseURL
    }

    /// Parses one catalog document; a page of a paged catalog may be empty only if it has a `next`.
    public func parse(_ data: Data) throws(CatalogError) -> Catalog {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw fail(.notJSON(Self.describe(error)))
        }
        guard let object = json as? [String: Any] else { throw fail(.notAnObject) }
        guard let rawImages = object["images"] else { throw fail(.missingImages) }
        guard let entries = rawImages as? [Any] else { throw fail(.imagesNotAnArray) }

        var next: URL?
        if let rawNext = object["next"], !(rawNext is NSNull) {
            guard let text = rawNext as? String, let url = resolve(text),
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { throw fail(.invalidNext(String(describing: rawNext))) }
            next = url
        }

        var images: [AppImage] = []
        var seen = Set<String>()
        for (index, entry) in entries.enumerated() {
            let image = try parseEntry(entry, index: index)
            guard seen.insert(image.name).inserted else {
                throw CatalogError(origin: origin, entry: .index(index, name: image.name), problem: .duplicateName(image.name))
            }
            images.append(image)
        }
        if images.isEmpty && next == nil { throw fail(.empty) }
        return Catalog(images: images, next: next, origin: origin)
    }

    private func parseEntry(_ entry: Any, index: Int) throws(CatalogError) -> AppImage {
        guard let fields = entry as? [String: Any] else {
            throw CatalogError(origin: origin, entry: .index(index, name: nil), problem: .entryNotAnObject)
        }
        let name = fields["name"] as? String
        func fail(_ problem: CatalogError.Problem) -> CatalogError {
            CatalogError(origin: origin, entry: .index(index, name: name), problem: problem)
        }
        guard fields["name"] != nil else { throw fail(.missingField("name")) }
        guard let name else { throw fail(.fieldNotAString("name")) }
        guard AppImage.isValidName(name) else { throw fail(.invalidName(name)) }

        var title: String?
        if let rawTitle = fields["title"], !(rawTitle is NSNull) {
            guard let text = rawTitle as? String else { throw fail(.fieldNotAString("title")) }
            title = text.isEmpty ? nil : text
        }

        guard let rawURL = fields["url"] else { throw fail(.missingField("url")) }
        guard let urlText = rawURL as? String else { throw fail(.fieldNotAString("url")) }
        guard let url = resolve(urlText) else { throw fail(.invalidURL(urlText)) }
        guard let scheme = url.scheme?.lowercased(), AppImage.allowedSchemes.contains(scheme) else {
            throw fail(.unsupportedScheme(url.scheme ?? ""))
        }
        if scheme != "file" && (url.host ?? "").isEmpty { throw fail(.invalidURL(urlText)) }
        return AppImage(name: name, title: title, url: url)
    }

    /// An absolute URL for `text`, resolving a relative reference against the catalog's base.
    private func resolve(_ text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed == text, !text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
        else { return nil }
        guard let url = URL(string: text, relativeTo: baseURL)?.absoluteURL, url.scheme != nil else { return nil }
        return url
    }

    private func fail(_ problem: CatalogError.Problem) -> CatalogError {
        CatalogError(origin: origin, problem: problem)
    }

    /// Foundation's JSON errors carry the useful part (line and column) in the debug description.
    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? nsError.localizedDescription
        let line = detail.split(separator: "\n").first.map(String.init) ?? detail
        // One-line messages end without a period.
        return TerminalText.sanitized(line.hasSuffix(".") ? String(line.dropLast()) : line)
    }
}
