import ImgviewFetching
import ImgviewHTML

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A web page's bytes through libxml2's HTML parser and `PageScanner`, and its text as a `srcset`.
enum WebPageFuzzing {
    private static let page = URL(string: "https://example.org/gallery/index.html")!

    static func run(_ bytes: [UInt8]) {
        let scanner = PageScanner(pageURL: page)
        guard let parser = try? LibXMLHTMLParser().parser(reportingTo: scanner) else { return }
        // In two pieces, split where the input says, so elements cut across chunks are explored too.
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        bytes.withUnsafeBytes { all in
            parser.feed(UnsafeRawBufferPointer(rebasing: all[0..<split]))
            parser.feed(UnsafeRawBufferPointer(rebasing: all[split...]))
        }
        parser.finish()
        precondition(scanner.images.count <= PageScanner.maxImages, "more images than the limit")
        var seen = Set<String>()
        for image in scanner.images {
            let scheme = image.url.scheme?.lowercased()
            precondition(scheme == "http" || scheme == "https", "an image that is not http(s)")
            precondition(image.url.fragment == nil, "a fragment kept")
            precondition(seen.insert(image.url.absoluteString).inserted, "a duplicate image")
        }

        let text = String(decoding: bytes, as: UTF8.self)
        let candidates = Srcset.candidates(text)
        if let largest = Srcset.largest(srcset: text, src: "src.jpg") {
            precondition(largest == "src.jpg" || candidates.contains { $0.url == largest }, "a largest that is no candidate")
        }
    }
}
