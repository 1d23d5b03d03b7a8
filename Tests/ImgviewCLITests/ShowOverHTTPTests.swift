import Foundation
import ImgviewServer
import Testing

/// `show` and `info` with http URLs and catalog names, against the loopback server.
@Suite("show and info over HTTP")
struct ShowOverHTTPTests {
    @Test func showsAnImageFetchedOverHTTP() async throws {
        let server = try await LoopbackServer.start()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: ShowInfoCommandTests.fixture("photo.png")))
        server.publish(.data(bytes, contentType: "text/plain"), at: "/photo")
        let url = server.url(for: "/photo").absoluteString
        let shown = try ImgviewProcess.run(["show", url, "--size", "20x5", "--colors", "none"])
        #expect(shown.status == 0 && !shown.stdout.isEmpty, "the format comes from the bytes, not the content type")
        let info = try ImgviewProcess.run(["info", url, "--json"])
        #expect(info.status == 0 && info.stdout.contains(#""origin":"network""#))
        let missing = try ImgviewProcess.run(["show", server.url(for: "/nothing.jpg").absoluteString])
        #expect(missing.status == 4 && missing.stderr.contains("HTTP 404"))
        server.publish(.data(bytes, contentType: "image/png"), at: "/broken", faults: [.status(500)])
        #expect(try ImgviewProcess.run(["show", server.url(for: "/broken").absoluteString]).status == 6)
        server.publish(.data(Data("<html></html>".utf8), contentType: "image/jpeg"), at: "/page.jpg")
        let page = try ImgviewProcess.run(["show", server.url(for: "/page.jpg").absoluteString])
        #expect(page.status == 7 && page.stderr.contains("not an image"))
        #expect(try ImgviewProcess.run(["show", url, "--offline"]).status == 10)
        await server.stop()
    }

    @Test func refusedConnectionIsANetworkError() throws {
        let result = try ImgviewProcess.run(["show", "http://127.0.0.1:9/a.jpg"])
        #expect(result.status == 5)
        #expect(result.stderr.hasPrefix("imgview: http://127.0.0.1:9/a.jpg: "))
    }
}
