import Foundation
import ImgviewHTML
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching

/// A web page's images as libxml2's HTML parser and `PageScanner` read them.
@Suite("The images of a web page")
struct PageScannerTests {
    static func scan(_ html: Data, pageURL: URL, chunk: Int = 4096) throws -> PageScanner {
        let scanner = PageScanner(pageURL: pageURL)
        let parser = try LibXMLHTMLParser().parser(reportingTo: scanner)
        // Fed in pieces, as a transfer delivers it: elements split across chunks still arrive whole.
        var offset = 0
        while offset < html.count {
            let end = min(html.count, offset + chunk)
            html[offset..<end].withUnsafeBytes { parser.feed($0) }
            offset = end
        }
        parser.finish()
        return scanner
    }

    @Test(arguments: [7, 4096])
    func everyKindOfReference(chunk: Int) throws {
        let scanner = try Self.scan(
            try Fixtures.data("page.html"), pageURL: URL(string: "https://example.org/pages/gallery.html")!, chunk: chunk)
        #expect(
            scanner.images.map(\.url.absoluteString) == [
                "https://cdn.example.org/og/cover.jpg",
                "https://example.org/tw.jpg",
                "https://cdn.example.org/gallery/a.jpg",
                "https://cdn.example.org/gallery/b-1280.jpg",
                "https://cdn.example.org/gallery/c@3x.jpg",
                "https://cdn.example.org/gallery/d2.jpg",
                "https://cdn.example.org/gallery/p@2x.avif",
                "https://cdn.example.org/gallery/full/huge.PNG?x=1&y=2",
                "https://other.example/z.webp",
                "https://cdn.example.org/gallery/spacer.gif",
                "https://cdn.example.org/gallery/e%20f.jpg",
                "https://cdn.example.org/gallery/q.jpg",
                "https://cdn.example.org/gallery/lazy-2x.jpg",
            ])
        #expect(
            scanner.images.map(\.title) == [
                nil, nil, "First & best", "Bee", nil, nil, "Picture", nil, nil, nil, nil, "Q", nil,
            ])
        #expect(scanner.title == "Gallery & more")
        #expect(!scanner.isCut)
    }

    /// Tag soup deeper than libxml2's tree limit, a page in Latin-1, and more images than are taken.
    @Test func deepLatin1AndCrowdedPages() throws {
        let deep = String(repeating: "<div>", count: 100_000) + "<img src=deep.jpg>"
        #expect(
            try Self.scan(Data(deep.utf8), pageURL: URL(string: "http://h/")!).images.map(\.url.absoluteString) == ["http://h/deep.jpg"])

        var latin1 = Data("<html><head><meta charset=\"iso-8859-1\"></head><body><img src=\"gr".utf8)
        latin1 += Data([0xFC, 0xDF]) + Data("e.jpg\" alt=\"caf".utf8) + Data([0xE9]) + Data("\"></body></html>".utf8)
        let scanned = try Self.scan(latin1, pageURL: URL(string: "http://h/")!)
        #expect(scanned.images.first?.title == "café")
        #expect(scanned.images.first?.url.absoluteString == "http://h/gr%C3%BC%C3%9Fe.jpg")

        let crowded = (0..<1500).map { "<img src=\($0).png>" }.joined()
        let many = try Self.scan(Data(crowded.utf8), pageURL: URL(string: "http://h/")!)
        #expect(many.images.count == PageScanner.maxImages)
        #expect(many.isCut)
        #expect(many.images.last?.url.absoluteString == "http://h/999.png")
    }

    @Test func srcsetCandidates() {
        #expect(Srcset.largest(srcset: "b-320.jpg 320w, b-1280.jpg 1280w,b-640.jpg 640w", src: "b.jpg") == "b-1280.jpg")
        #expect(Srcset.largest(srcset: "c.jpg, c@2x.jpg 2x, c@3x.jpg   3x", src: nil) == "c@3x.jpg")
        #expect(Srcset.largest(srcset: "https://x.example/d,e.jpg 1x, d2.jpg 2x", src: nil) == "d2.jpg")
        #expect(Srcset.candidates("a.jpg,, b.jpg 2x,") == [.init(url: "a.jpg"), .init(url: "b.jpg", density: 2)])
        #expect(Srcset.largest(srcset: "", src: "only.jpg") == "only.jpg")
        #expect(Srcset.largest(srcset: nil, src: nil) == nil)
    }
}
