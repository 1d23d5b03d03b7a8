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
        #expect(headers.userAgent == "tester/1")
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

    @Test func originsAreSchemeHostAndPort() {
        let original = URL(string: "https://example.org/a.jpg")!
        #expect(RedirectPolicy.isSameOrigin(original, URL(string: "https://EXAMPLE.org:443/b.jpg")!))
        #expect(!RedirectPolicy.isSameOrigin(original, URL(string: "https://cdn.example.org/b.jpg")!))
        #expect(!RedirectPolicy.isSameOrigin(original, URL(string: "https://example.org:8443/b.jpg")!))
        #expect(!RedirectPolicy.isSameOrigin(original, URL(string: "http://example.org/b.jpg")!))
    }

    /// What follows a redirect: imgview's own fields always; the `-H` fields only at the first
    /// request's origin; the User-Agent everywhere; the Referer as a browser sends it.
    @Test func aRedirectElsewhereDropsTheUsersFields() throws {
        var headers = RequestHeaders()
        try headers.add("Authorization: Bearer secret")
        try headers.add("X-Token: t1")
        try headers.add("Accept: image/webp")
        try headers.setUserAgent("tester/1")
        try headers.setReferrer("https://example.org/gallery/1.html")
        let request = HTTPRequest.get(
            URL(string: "https://example.org/a.jpg")!, fields: [.userAgent: "imgview/0.1", .accept: "image/*", .range: "bytes=10-"])
        let near = RedirectPolicy.request(request, redirectedTo: URL(string: "https://example.org/b.jpg")!, adding: headers)
        #expect(near == headers.applied(to: .get(URL(string: "https://example.org/b.jpg")!, fields: request.headerFields)))
        #expect(near.headerFields[.authorization] == "Bearer secret")
        #expect(near.headerFields[.referer] == "https://example.org/gallery/1.html")
        let away = RedirectPolicy.request(request, redirectedTo: URL(string: "https://cdn.example.net:8443/b.jpg")!, adding: headers)
        #expect(away.url == URL(string: "https://cdn.example.net:8443/b.jpg")!)
        #expect(away.headerFields[.authorization] == nil)
        #expect(away.headerFields[HTTPField.Name("X-Token")!] == nil)
        #expect(away.headerFields[values: .accept] == ["image/*"], "imgview's own Accept, not the user's")
        #expect(away.headerFields[.range] == "bytes=10-")
        #expect(away.headerFields[values: .userAgent] == ["tester/1"])
        #expect(away.headerFields[.referer] == "https://example.org/")
        let plain = RedirectPolicy.request(request, redirectedTo: URL(string: "http://example.org/b.jpg")!, adding: headers)
        #expect(plain.headerFields[.referer] == nil, "no Referer from https to http")
        #expect(plain.headerFields[.authorization] == nil)
    }

    @Test(arguments: [
        ("https://example.org/g/1.html", "https://example.org/a.jpg", "https://example.org/g/1.html"),
        ("https://example.org/g/1.html?x=1", "https://cdn.example.org/a.jpg", "https://example.org/"),
        ("http://example.org:8080/g/", "http://cdn.example.org/a.jpg", "http://example.org:8080/"),
        ("https://example.org:443/g/", "https://cdn.example.org/a.jpg", "https://example.org/"),
        ("https://example.org/g/", "http://cdn.example.org/a.jpg", nil),
        ("not a url", "https://example.org/a.jpg", nil),
    ])
    func referrersFollowAsBrowsersSendThem(given: String, target: String, sent: String?) {
        #expect(RedirectPolicy.referrer(given, to: URL(string: target)!) == sent)
    }
}
