import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Catalog {
    /// The catalog in the file format that `--catalog` reads: `{"images": [...], "next": ...}`.
    ///
    /// With `cacheStates` (one per image, in order), each image also says `"cached"` and `"fresh"`
    /// (as `list --json` prints it); the catalog reader ignores those keys, so the output still
    /// works as a catalog. Written by hand, one image per line, for catalogs of 100,000 images
    /// (DECISIONS.md, "Catalogs: our own JSON scanner, URLs kept as text"). No newline follows the
    /// closing brace, as `JSONEncoder` wrote it.
    public func jsonData(cacheStates: [CacheState]? = nil) -> Data {
        var text = "{\n  \"images\": ["
        text.reserveCapacity(images.count * 160)
        for (index, image) in images.enumerated() {
            text += index == 0 ? "\n    {" : ",\n    {"
            if let state = cacheStates?[index] {
                text += "\"cached\": \(state != .notCached), \"fresh\": \(state == .fresh), "
            }
            text += "\"name\": \(JSONText.string(image.name))"
            if let title = image.title { text += ", \"title\": \(JSONText.string(title))" }
            text += ", \"url\": \(JSONText.string(image.urlString))}"
        }
        text += images.isEmpty ? "]" : "\n  ]"
        if let next { text += ",\n  \"next\": \(JSONText.string(next.absoluteString))" }
        text += "\n}"
        return Data(text.utf8)
    }
}
