import Foundation

extension Catalog {
    /// The catalog in the file format that `--catalog` reads: `{"images": [...], "next": ...}`.
    public func jsonData() -> Data {
        struct Document: Encodable {
            let images: [AppImage]
            let next: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and URLs cannot fail.
        return try! encoder.encode(Document(images: images, next: next?.absoluteString))
    }
}
