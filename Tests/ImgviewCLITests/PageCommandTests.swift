import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewSupport

/// `imgview get --page URL`: the images of a web page, against the loopback server.
@Suite("imgview get --page")
struct PageCommandTests {
    static let png = try! Fixtures.data("rgb.png")

    @Test func downloadsTheImagesAPageShowsAndOnlyThenOpensLibxml2() async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) {
            for name in ["a", "b-small", "b-large", "c", "og"] {
                server.publish(.data(Self.png + Data(name.utf8), contentType: "image/png"), at: "/images/\(name).png")
            }
            let html = """
                <!doctype html><html><head><title>Test gallery</title>
                <meta property="og:image" content="/images/og.png"></head><body>
                <img src="../images/a.png" alt="A"><img src="data:image/png;base64,AAAA">
                <img src="../images/b-small.png" srcset="../images/b-small.png 300w, ../images/b-large.png 1200w">
                <a href="\(server.url(for: "/images/c.png").absoluteString)#top">c</a><a href="other.html">more</a>
                <img src="../images/a.png" alt="again">
                </body></html>
                """
            server.publish(.data(Data(html.utf8), contentType: "text/html; charset=utf-8"), at: "/pages/gallery.html")
            let page = server.url(for: "/pages/gallery.html").absoluteString
            let environment = ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path]
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)

            let result = try await ImgviewProcess.run(
                ["get", "--page", page, "-O", "out", "--json"], environment: environment.merging(["LD_DEBUG": "files"]) { $1 },
                directory: folder)
            #expect(result.status == 0, "\(result.stderr.suffix(500))")
            #expect(result.stderr.contains("libxml2.so"), "the page was parsed by libxml2, opened on demand")
            let saved = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path).sorted()
            #expect(saved == ["a.png", "b-large.png", "c.png", "og.png"])
            #expect(try Data(contentsOf: folder.appendingPathComponent("out/b-large.png")) == Self.png + Data("b-large".utf8))
            #expect(result.stdout.split(separator: "\n").count == 4)
            #expect(server.requests(for: "/images/b-small.png").isEmpty)
            #expect(server.requests(for: "/images/a.png").count == 1)

            let plain = try await LightBinaryTests.loadedLibraries([
                "get", server.url(for: "/images/a.png").absoluteString, "-o", folder.appendingPathComponent("x.png").path,
            ])
            #expect(!plain.libraries.contains { $0.hasPrefix("libxml2") }, "\(plain.libraries)")

            let none = try await ImgviewProcess.run(
                ["get", "--page", server.url(for: "/images/a.png").absoluteString], environment: environment, directory: folder)
            #expect(none.status == ExitStatus.notFound.rawValue)
            #expect(none.stderr == "imgview: no images in \(server.url(for: "/images/a.png").absoluteString)\n")
            let missing = try await ImgviewProcess.run(
                ["get", "--page", server.url(for: "/pages/none.html").absoluteString], environment: environment, directory: folder)
            #expect(missing.status == ExitStatus.notFound.rawValue)
            let notHTTP = try await ImgviewProcess.run(["get", "--page", "ftp://example.org/"], environment: environment)
            #expect(notHTTP.status == ExitStatus.usage.rawValue)
        }
    }
    /// A libxml2 that cannot be loaded (here a file of its name that is no library, found first on
    /// LD_LIBRARY_PATH) is neither a usage error nor the page's fault: exit 12, one line naming the package.
    @Test func aLibxml2ThatCannotBeLoadedIsItsOwnFailure() async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) {
            server.publish(.data(Data("<img src=a.png>".utf8), contentType: "text/html"), at: "/page.html")
            let libraries = folder.appendingPathComponent("lib")
            try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
            try Data("not a library".utf8).write(to: libraries.appendingPathComponent("libxml2.so.2"))
            let result = try await ImgviewProcess.run(
                ["get", "--page", server.url(for: "/page.html").absoluteString, "-O", folder.path],
                environment: ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path, "LD_LIBRARY_PATH": libraries.path])
            #expect(result.status == ExitStatus.missingLibrary.rawValue, "\(result.stderr)")
            #expect(
                result.errorLine.hasPrefix(
                    "imgview: cannot read web pages: libxml2.so.2 cannot be loaded (install the Debian package libxml2)"))
            #expect(result.errorLine.split(separator: "\n").count == 1)
        }
    }
}
