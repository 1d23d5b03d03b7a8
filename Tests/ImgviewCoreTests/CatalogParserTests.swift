import Foundation
import Testing

@testable import ImgviewFetching

@Suite("Catalog parsing")
struct CatalogParserTests {
    let parser = CatalogParser(origin: .file("/tmp/c.json"), baseURL: URL(fileURLWithPath: "/tmp/photos/"))

    func parse(_ json: String) throws(CatalogError) -> Catalog {
        try parser.parse(Data(json.utf8))
    }

    func message(_ json: String) -> String? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            #expect(error.exitStatus == .catalog)
            return error.message
        }
    }

    @Test func readsNamesTitlesAndURLs() throws {
        let catalog = try parse(
            #"{"images": [{"name": "a", "title": "A photo", "url": "https://example.org/a.jpg"}, {"name": "b.2_x-y", "url": "http://h/b.png"}]}"#
        )
        #expect(catalog.images.map(\.name) == ["a", "b.2_x-y"])
        #expect(catalog.images[0].title == "A photo")
        #expect(catalog.images[1].title == nil)
        #expect(catalog.images[1].displayTitle == "b.2_x-y")
        #expect(catalog.images[0].url.absoluteString == "https://example.org/a.jpg")
        #expect(catalog.next == nil)
    }

    @Test func resolvesRelativeURLsAgainstTheCatalogsFolder() throws {
        let catalog = try parse(#"{"images": [{"name": "a", "url": "x/a.jpg"}]}"#)
        #expect(catalog.images[0].url == URL(fileURLWithPath: "/tmp/photos/x/a.jpg"))
    }

    @Test func readsNext() throws {
        let remote = CatalogParser(origin: .remote(URL(string: "http://h/c/1.json")!), baseURL: URL(string: "http://h/c/1.json"))
        let catalog = try remote.parse(Data(#"{"images": [{"name": "a", "url": "a.jpg"}], "next": "2.json"}"#.utf8))
        #expect(catalog.next?.absoluteString == "http://h/c/2.json")
        #expect(catalog.images[0].url.absoluteString == "http://h/c/a.jpg")
    }

    @Test(
        "Every malformed catalog names the file, the entry and the problem",
        arguments: [
            ("{", "catalog /tmp/c.json: is not valid JSON"),
            ("[1]", "catalog /tmp/c.json: must be a JSON object with an \"images\" array"),
            ("{}", "catalog /tmp/c.json: has no \"images\" array"),
            (#"{"images": {}}"#, "catalog /tmp/c.json: \"images\" must be an array"),
            (#"{"images": []}"#, "catalog /tmp/c.json: lists no images"),
            (#"{"images": [3]}"#, "catalog /tmp/c.json, entry 1: must be an object with \"name\" and \"url\""),
            (#"{"images": [{"url": "http://h/a.jpg"}]}"#, "catalog /tmp/c.json, entry 1: has no \"name\""),
            (#"{"images": [{"name": 5, "url": "http://h/a.jpg"}]}"#, "catalog /tmp/c.json, entry 1: \"name\" must be a string"),
            (#"{"images": [{"name": "Big", "url": "http://h/a.jpg"}]}"#, "catalog /tmp/c.json, entry 1 (\"Big\"): invalid name \"Big\""),
            (#"{"images": [{"name": "-a", "url": "http://h/a.jpg"}]}"#, "catalog /tmp/c.json, entry 1 (\"-a\"): invalid name \"-a\""),
            (#"{"images": [{"name": "", "url": "http://h/a.jpg"}]}"#, "catalog /tmp/c.json, entry 1 (\"\"): invalid name \"\""),
            (#"{"images": [{"name": "a b", "url": "http://h/a.jpg"}]}"#, "catalog /tmp/c.json, entry 1 (\"a b\"): invalid name"),
            (
                #"{"images": [{"name": "a", "url": "http://h/a.jpg"}, {"name": "a", "url": "http://h/b.jpg"}]}"#,
                "catalog /tmp/c.json, entry 2 (\"a\"): duplicate name \"a\""
            ),
            (#"{"images": [{"name": "a"}]}"#, "catalog /tmp/c.json, entry 1 (\"a\"): has no \"url\""),
            (#"{"images": [{"name": "a", "url": 1}]}"#, "catalog /tmp/c.json, entry 1 (\"a\"): \"url\" must be a string"),
            (
                #"{"images": [{"name": "a", "url": "ftp://h/a.jpg"}]}"#,
                "catalog /tmp/c.json, entry 1 (\"a\"): unsupported URL scheme \"ftp\""
            ),
            (
                #"{"images": [{"name": "a", "url": "javascript:alert(1)"}]}"#,
                "catalog /tmp/c.json, entry 1 (\"a\"): unsupported URL scheme \"javascript\""
            ),
            (#"{"images": [{"name": "a", "url": "http://"}]}"#, "catalog /tmp/c.json, entry 1 (\"a\"): invalid URL \"http://\""),
            (
                #"{"images": [{"name": "a", "url": "has space.jpg"}]}"#,
                "catalog /tmp/c.json, entry 1 (\"a\"): invalid URL \"has space.jpg\""
            ),
            (
                #"{"images": [{"name": "a", "title": 3, "url": "http://h/a.jpg"}]}"#,
                "catalog /tmp/c.json, entry 1 (\"a\"): \"title\" must be a string"
            ),
            (
                #"{"images": [{"name": "a", "url": "http://h/a.jpg"}], "next": "ftp://x"}"#,
                "catalog /tmp/c.json: invalid \"next\" URL \"ftp://x\""
            ),
        ])
    func malformedCatalog(json: String, expected: String) {
        let text = message(json)
        #expect(text?.hasPrefix(expected) == true, "got: \(text ?? "no error")")
    }

    @Test func escapeSequencesInNamesNeverReachTheMessage() {
        let text = message(#"{"images": [{"name": "\u001b]0;pwned\u0007", "url": "http://h/a.jpg"}]}"#) ?? ""
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
        #expect(text.contains("?]0;pwned?"))
    }

    @Test func namesFollowTheSpecPattern() {
        #expect(AppImage.isValidName("image0"))
        #expect(AppImage.isValidName("0.a_b-c"))
        #expect(!AppImage.isValidName("Image"))
        #expect(!AppImage.isValidName(".hidden"))
        #expect(!AppImage.isValidName("a/b"))
        #expect(!AppImage.isValidName("é"))
        #expect(!AppImage.isValidName(String(repeating: "a", count: 65)))
    }

    @Test func builtInCatalogHasTheTutorialImages() {
        #expect(Catalog.builtIn.images.map(\.name) == ["image0", "image1"])
        #expect(Catalog.builtIn.image(named: "image1")?.url.lastPathComponent == "image01.jpg")
    }

    @Test func jsonRoundTrips() throws {
        let catalog = try parse(
            #"{"images": [{"name": "a", "title": "T", "url": "https://example.org/a.jpg"}, {"name": "b", "url": "file:///x/b.png"}]}"#)
        let again = try parser.parse(catalog.jsonData())
        #expect(again.images == catalog.images)
    }
}

/// The catalog reader's JSON: RFC 8259 strictly, with the place of the first error.
@Suite("Catalog JSON")
struct CatalogJSONTests {
    let parser = CatalogParser(origin: .file("/tmp/c.json"), baseURL: URL(fileURLWithPath: "/tmp/photos/"))

    func message(_ json: [UInt8]) -> String? {
        do {
            _ = try parser.parse(Data(json))
            return nil
        } catch {
            return error.message
        }
    }

    @Test func stringsUnescapeAsJSONSays() throws {
        let json = #"{"images": [{"name": "a", "title": "tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00 \n", "url": "http:\/\/h\/a.jpg"}]}"#
        let image = try #require(try parser.parse(Data(json.utf8)).images.first)
        #expect(image.title == "tab\there \"q\" \\ / é 😀 \n")
        #expect(image.urlString == "http://h/a.jpg")
    }

    @Test func aByteOrderMarkWhitespaceAndUnknownMembersAreFine() throws {
        let json =
            "\u{FEFF} \r\n\t{\"x\": [1, -2.5e+3, true, false, null, {\"y\": []}], \"images\": [{\"name\": \"a\", \"url\": \"a.jpg\", \"extra\": {\"deep\": [0.5]}}]} \n"
        #expect(try parser.parse(Data(json.utf8)).images.map(\.name) == ["a"])
    }

    @Test func theLastOfARepeatedMemberCounts() throws {
        let json = #"{"images": [{"name": "a", "url": "a.jpg"}], "images": [{"name": "b", "name": "c", "url": "c.jpg"}]}"#
        #expect(try parser.parse(Data(json.utf8)).images.map(\.name) == ["c"])
    }

    @Test(arguments: [
        (#"{"images": [],}"#, "expected a key in quotes at line 1, column 15"),
        (#"{"images": [1,]}"#, "unexpected character ']' at line 1, column 15"),
        ("{\"images\":\n [{\"name\": \"a\u{01}\"}]}", "control character in a string at line 2, column 14"),
        (#"{"images": [{"name": "\x"}]}"#, "invalid escape: \\ then 'x' at line 1, column 25"),
        (#"{"images": [{"name": "\ud800"}]}"#, "unpaired surrogate in a \\u escape at line 1, column 29"),
        (#"{"images": [01]}"#, "expected ',', found '1' at line 1, column 14"),
        (#"{"images": [] } x"#, "unexpected 'x' after the end at line 1, column 17"),
        (#"{"images": [tru]}"#, "unexpected character 't' at line 1, column 13"),
        ("{\"images\": \"", "unterminated string at line 1, column 13"),
    ])
    func brokenJSONSaysWhereItBreaks(json: String, problem: String) {
        #expect(message(Array(json.utf8)) == "catalog /tmp/c.json: is not valid JSON: \(problem)")
    }

    @Test func brokenJSONIsReportedEvenAfterAnEntryThatIsWrongOtherwise() {
        #expect(message(Array(#"{"images": [{"name": "A", "url": "a.jpg"}], "#.utf8))?.contains("is not valid JSON") == true)
    }

    @Test func invalidUTF8IsNotJSON() {
        let bytes = Array(#"{"images": [{"name": "a", "title": ""#.utf8) + [0xC3, 0x28] + Array(#"", "url": "a.jpg"}]}"#.utf8)
        #expect(message(bytes) == "catalog /tmp/c.json: is not valid JSON: invalid UTF-8 in a string at line 1, column 37")
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(
            message(Array(("{\"x\": " + deep).utf8))
                == "catalog /tmp/c.json: is not valid JSON: nested more than 512 deep at line 1, column 519")
    }

    /// Relative paths are appended to the base's folder as text, the way RFC 3986 resolves them;
    /// anything else (dot segments, queries, absolute paths) is resolved by Foundation.
    @Test func relativeURLsResolveAsFoundationResolvesThem() throws {
        let references = ["a.jpg", "x/y/a.jpg", "../a.jpg", "./a.jpg", "/abs/a.jpg", "a.jpg?x=1", "a%20b.jpg", "//other/a.jpg", "a:b"]
        for base in [URL(fileURLWithPath: "/tmp/photos/"), URL(string: "http://h/c/page.json?p=2")!, URL(string: "https://h")!] {
            let parser = CatalogParser(origin: .file("/tmp/c.json"), baseURL: base)
            for (index, reference) in references.enumerated() {
                let json = "{\"images\": [{\"name\": \"i\(index)\", \"url\": \"\(reference)\"}]}"
                let expected = URL(string: reference, relativeTo: base)?.absoluteURL
                guard let expected, let scheme = expected.scheme, ["http", "https", "file"].contains(scheme),
                    scheme == "file" || !(expected.host ?? "").isEmpty
                else { continue }
                #expect(try parser.parse(Data(json.utf8)).images.first?.url == expected, "\(reference) against \(base)")
            }
        }
    }
}

/// URLs the parser takes without making a `URL` must be ones `URL(string:)` takes unchanged.
@Suite("Plain web URLs")
struct PlainWebURLTests {
    @Test func everyPlainURLParsesAsItIs() {
        var generator = SystemRandomNumberGenerator()
        // Mostly characters a plain URL may have, with now and then one it may not.
        let hostAlphabet = Array("aZ09.-".unicodeScalars) + Array(":@_%".unicodeScalars)
        let alphabet = Array("aZ09.-_~!$&'()*+,;=:@/?%%/".unicodeScalars) + Array("#[] \"<>\\^`{|}é".unicodeScalars)
        func text(_ letters: [Unicode.Scalar], _ counts: ClosedRange<Int>) -> String {
            String(String.UnicodeScalarView((0..<Int.random(in: counts, using: &generator)).map { _ in letters.randomElement()! }))
        }
        var accepted = 0
        for _ in 0..<20_000 {
            let scheme = Bool.random(using: &generator) ? "http://" : "https://"
            let host = text(hostAlphabet, 0...6)
            let rest = (Int.random(in: 0..<4, using: &generator) == 0 ? "" : "/") + text(alphabet, 0...12)
            let text = scheme + host + rest
            guard CatalogParser.isPlainWebURL(text) else { continue }
            accepted += 1
            let url = URL(string: text)
            #expect(url?.absoluteString == text, "\(text)")
            #expect(url?.host?.isEmpty == false, "\(text)")
        }
        #expect(accepted > 300)
    }

    @Test func examples() {
        for text in ["http://h/a.jpg", "https://example.org:8443/a%20b.png?x=1&y=2", "http://127.0.0.1:9", "http://h.example/@:;=+"] {
            #expect(CatalogParser.isPlainWebURL(text), "\(text)")
        }
        for text in [
            "HTTP://h/a", "http://", "http:///a", "http://h:99999/", "http://h/a#f", "http://h/%zz", "http://h/a b", "http://[::1]/",
            "file:///a",
        ] {
            #expect(!CatalogParser.isPlainWebURL(text), "\(text)")
        }
    }
}
