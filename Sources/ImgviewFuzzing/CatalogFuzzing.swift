import ImgviewFetching

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Catalog bytes through the parser, and a parsed catalog through `list --json` and back.
enum CatalogFuzzing {
    private static let parser = CatalogParser(
        origin: .file("fuzz.json"), baseURL: URL(fileURLWithPath: "/catalogs/", isDirectory: true))

    static func run(_ bytes: [UInt8]) {
        let catalog: Catalog
        do {
            catalog = try parser.parse(Data(bytes))
        } catch {
            TerminalSafety.requireSafe(error.message, "catalog error")
            return
        }
        var names = Set<String>()
        for image in catalog.images {
            precondition(AppImage.isValidName(image.name), "accepted an invalid name")
            precondition(names.insert(image.name).inserted, "accepted a duplicate name")
            let scheme = image.url.scheme?.lowercased()
            precondition(scheme == "http" || scheme == "https" || scheme == "file", "accepted a URL imgview cannot fetch")
        }
        // What `list --json` prints must read back as the same catalog.
        do {
            let again = try parser.parse(catalog.jsonData())
            precondition(again.images == catalog.images && again.next == catalog.next, "catalog changed in a round trip")
        } catch {
            preconditionFailure("list --json wrote a catalog its own parser refuses: \(error.message)")
        }
    }
}
