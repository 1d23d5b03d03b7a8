import Foundation

extension Catalog {
    /// The catalog in the file format that `--catalog` reads: `{"images": [...], "next": ...}`.
    ///
    /// With `cacheStates`, each image also says `"cached"` and `"fresh"` (as `list --json` prints it);
    /// the catalog reader ignores those keys, so the output still works as a catalog.
    public func jsonData(cacheStates: [URL: CacheState]? = nil) -> Data {
        struct Listed: Encodable {
            let image: AppImage
            let state: CacheState?

            enum CodingKeys: String, CodingKey { case cached, fresh }

            func encode(to encoder: any Encoder) throws {
                try image.encode(to: encoder)
                guard let state else { return }
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(state != .notCached, forKey: .cached)
                try container.encode(state == .fresh, forKey: .fresh)
            }
        }
        struct Document: Encodable {
            let images: [Listed]
            let next: String?
        }
        let listed = images.map { image in Listed(image: image, state: cacheStates.map { $0[image.url] ?? .notCached }) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, booleans and URLs cannot fail.
        return JSONText.escapingUnsafe(try! encoder.encode(Document(images: listed, next: next?.absoluteString)))
    }
}
