import Foundation
import Testing

@testable import ImgviewFetching

/// What `list` prints.
@Suite("Catalog listing")
struct CatalogListingTests {
    let catalog = Catalog(
        images: [
            AppImage(name: "a", title: "A very long title that goes on", url: URL(string: "https://example.org/some/long/path/a.jpg")!),
            AppImage(name: "b", url: URL(string: "http://h/b.png")!),
            AppImage(name: "c", title: "Esc \u{1B}[31m", url: URL(string: "http://h/c.png")!),
        ], origin: .builtIn)

    var listing: CatalogListing { CatalogListing(catalog: catalog, states: [.fresh, .notCached, .stale]) }

    @Test func aPipeGetsTabSeparatedLinesWithNoPadding() {
        #expect(
            listing.plain == """
                a\tA very long title that goes on\thttps://example.org/some/long/path/a.jpg\tfresh
                b\t-\thttp://h/b.png\tno
                c\tEsc ?[31m\thttp://h/c.png\tstale

                """)
    }

    @Test func aTerminalGetsATableFittedToItsWidth() {
        let wide = listing.table(width: 120).split(separator: "\n")
        #expect(wide[0].hasPrefix("NAME  TITLE"))
        #expect(wide[1].contains("https://example.org/some/long/path/a.jpg"))
        for width in [70, 50] {
            let lines = listing.table(width: width).split(separator: "\n")
            #expect(lines.allSatisfy { $0.count <= width }, "\(width): \(lines)")
            #expect(lines[0].hasPrefix("NAME"))
        }
        // Narrow: the URL loses its middle first, then the title column goes.
        #expect(listing.table(width: 70).contains("…"))
        #expect(!listing.table(width: 40).contains("TITLE"))
    }

    @Test func jsonIsTheCatalogFormatWithCacheStates() throws {
        let json = listing.json()
        let again = try CatalogParser(origin: .builtIn, baseURL: nil).parse(json)
        #expect(again.images == catalog.images)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let images = try #require(object["images"] as? [[String: Any]])
        #expect(images.map { $0["cached"] as? Bool } == [true, false, true])
        #expect(images.map { $0["fresh"] as? Bool } == [true, false, false])
    }
}
