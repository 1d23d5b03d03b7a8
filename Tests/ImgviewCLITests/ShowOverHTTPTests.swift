import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

/// `show` and `info` with http URLs and catalog names, against the loopback server.
@Suite("show and info over HTTP")
struct ShowOverHTTPTests {
    @Test func showsAnImageFetchedOverHTTP() async throws {
        let server = try await LoopbackServer.start()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photo.png")))
        server.publish(.data(bytes, contentType: "text/plain"), at: "/photo")
        let url = server.url(for: "/photo").absoluteString
        let shown = try await ImgviewProcess.run(["show", url, "--size", "20x5", "--colors", "none"])
        #expect(shown.status == 0 && !shown.stdout.isEmpty, "the format comes from the bytes, not the content type")
        let info = try await ImgviewProcess.run(["info", url, "--json"])
        // `show` fetched it through the pipeline, so `info` finds it in the disk cache.
        #expect(info.status == 0 && info.stdout.contains(#""origin":"disk""#), "\(info.stdout)")
        #expect(server.requests(for: "/photo").count == 1)
        let missing = try await ImgviewProcess.run(["show", server.url(for: "/nothing.jpg").absoluteString])
        #expect(missing.status == 4 && missing.stderr.contains("HTTP 404"))
        server.publish(.data(bytes, contentType: "image/png"), at: "/broken", faults: [.status(500)])
        #expect(try await ImgviewProcess.run(["show", server.url(for: "/broken").absoluteString]).status == 6)
        server.publish(.data(Data("<html></html>".utf8), contentType: "image/jpeg"), at: "/page.jpg")
        let page = try await ImgviewProcess.run(["show", server.url(for: "/page.jpg").absoluteString])
        #expect(page.status == 7 && page.stderr.contains("not an image"))
        // Shown once, the image is cached: --offline shows it; an image never fetched is a miss.
        #expect(try await ImgviewProcess.run(["show", url, "--offline", "--size", "20x5"]).status == 0)
        #expect(try await ImgviewProcess.run(["show", server.url(for: "/never.png").absoluteString, "--offline"]).status == 10)
        await server.stop()
    }

    @Test func refusedConnectionIsANetworkError() async throws {
        let result = try await ImgviewProcess.run(["show", "http://127.0.0.1:9/a.jpg"])
        #expect(result.status == 5)
        #expect(result.stderr.hasPrefix("imgview: http://127.0.0.1:9/a.jpg: "))
    }
}
