import Foundation
import HTTPTypes
import Testing

@testable import ImgviewFetching

/// `-H`, `--referer` and `--user-agent` as `RequestHeaders` reads and applies them, and which
/// origin credentials may follow a redirect to.
@Suite("Request headers")
struct RequestHeadersTests {
    @Test func givenFieldsReplaceImgviewsOwnAndAnEmptyOneRemovesIt() throws {
        var headers = RequestHeaders()
        try headers.add("X-Token:  abc ")
        try headers.add("x-token: def")
        try headers.add("Accept:")
        try headers.setUserAgent("tester/1")
        let request = headers.applied(
            to: .get(URL(string: "https://example.org/a.jpg")!, fields: [.userAgent: "imgview/0.1", .accept: "image/*"]))
        #expect(request.headerFields[values: HTTPField.Name("X-Token")!] == ["abc", "def"])
        #expect(request.headerFields[.accept] == nil)
        #expect(request.headerFields[values: .userAgent] == ["tester/1"])
        #expect(headers.referrer == nil)
        #expect(RequestHeaders().applied(to: .get(URL(string: "https://example.org/")!)).headerFields.isEmpty)
    }

    @Test(arguments: [
        ("no colon", RequestHeaderError.noColon("no colon")),
        (": value", RequestHeaderError.badName("")),
        ("Bad Name: x", RequestHeaderError.badName("Bad Name")),
        ("If-None-Match: \"a\"", RequestHeaderError.managed("If-None-Match", "revalidating")),
        ("Accept-Encoding: gzip", RequestHeaderError.managed("Accept-Encoding", "decoding bodies")),
        ("X-A: one\u{1B}[2J", RequestHeaderError.controlCharacter("-H X-A")),
    ])
    func badHeadersAreRefused(line: String, error: RequestHeaderError) {
        var headers = RequestHeaders()
        #expect(throws: error) { try headers.add(line) }
    }

    @Test func credentialsStayWithTheirOrigin() {
        let original = URL(string: "https://example.org/a.jpg")!
        #expect(RedirectPolicy.keepsCredentials(from: original, to: URL(string: "https://EXAMPLE.org:443/b.jpg")!))
        #expect(!RedirectPolicy.keepsCredentials(from: original, to: URL(string: "https://cdn.example.org/b.jpg")!))
        #expect(!RedirectPolicy.keepsCredentials(from: original, to: URL(string: "https://example.org:8443/b.jpg")!))
        #expect(!RedirectPolicy.keepsCredentials(from: original, to: URL(string: "http://example.org/b.jpg")!))
    }
}
