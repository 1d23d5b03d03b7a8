import Foundation
import Testing

@testable import ImgviewCore

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
