import Foundation
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// Text from outside made safe: URLs encoded once, and separators that break lines shown as `?`.
@Suite("Text from outside")
struct UserTextTests {
    @Test(arguments: [
        ("http://h/a%20b.jpg", "http://h/a%20b.jpg"),
        ("http://h/a%20b[1].jpg", "http://h/a%20b%5B1%5D.jpg"),
        ("http://h/a|b%20c.jpg", "http://h/a%7Cb%20c.jpg"),
        ("http://h/a b.jpg", "http://h/a%20b.jpg"),
        ("http://h/100%.jpg", "http://h/100%25.jpg"),
        ("http://h/é%20.jpg?q=[x]#frag#more", "http://h/%C3%A9%20.jpg?q=%5Bx%5D#frag%23more"),
        ("http://[::1]:8080/x%41[2].jpg", "http://[::1]:8080/x%41%5B2%5D.jpg"),
        ("https://user@h:443/a{b}^c`d\"e<f>g\\h.jpg", "https://user@h:443/a%7Bb%7D%5Ec%60d%22e%3Cf%3Eg%5Ch.jpg"),
        ("file:///tmp/a%20b[1].jpg", "file:///tmp/a%20b%5B1%5D.jpg"),
    ])
    func urlsAreEncodedOnce(text: String, expected: String) throws {
        let url = try #require(URL(userText: text))
        #expect(url.absoluteString == expected)
        // Encoding what is already encoded changes nothing.
        #expect(URL(userText: url.absoluteString)?.absoluteString == expected)
    }

    @Test func controlCharactersAreNeverPartOfAURL() {
        #expect(URL(userText: "http://h/a\u{1B}[31m.jpg") == nil)
        #expect(URL(userText: "http://h/a\nb.jpg") == nil)
    }

    @Test func catalogURLsAreEncodedOnce() throws {
        let json = #"{"images": [{"name": "a", "url": "http://h/a%20b[1].jpg"}, {"name": "b", "url": "c%20d|e.jpg"}]}"#
        let base = URL(string: "http://h/cat/index.json")!
        let catalog = try CatalogParser(origin: .remote(base), baseURL: base).parse(Data(json.utf8))
        #expect(catalog.images.map(\.urlString) == ["http://h/a%20b%5B1%5D.jpg", "http://h/cat/c%20d%7Ce.jpg"])
    }

    @Test func lineSeparatorsAreNotPrintedRaw() {
        #expect(TerminalText.sanitized("a\u{2028}b\u{2029}c") == "a?b?c")
        #expect(TerminalText.isUnsafe("\u{2028}") && TerminalText.isUnsafe("\u{2029}"))
    }
}
