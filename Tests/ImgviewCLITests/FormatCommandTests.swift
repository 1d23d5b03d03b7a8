import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

/// GIF, WebP, AVIF and BMP through `show` and `info`, and the formats imgview only recognises
/// through `get`, the cache and `show`, as a user runs them.
@Suite("Image formats on the command line")
struct FormatCommandTests {
    static func fixture(_ name: String) -> String { Fixtures.path(name) }

    @Test(arguments: [
        "q.gif", "q-alpha.webp", "q-10bit.avif", "q-24-topdown.bmp", "hopper.webp", "hopper.avif", "q.qoi", "hopper.ico", "q.cur",
    ])
    func showPreviewsEveryFormat(name: String) async throws {
        let result = try await ImgviewProcess.run(["show", Self.fixture(name), "--size", "16x6", "--mode", "ascii", "--colors", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(!result.stdout.isEmpty && result.stdout.hasSuffix("\n"))
    }

    @Test(arguments: ["anim.gif", "anim.webp", "anim.avif", "anim.png"])
    func anAnimationIntoAPipeIsItsFirstFrame(name: String) async throws {
        let animated = try await ImgviewProcess.run(["show", Self.fixture(name), "--size", "16x6", "--mode", "blocks", "--colors", "256"])
        let still = try await ImgviewProcess.run(["show", Self.fixture("q.gif"), "--size", "16x6", "--mode", "blocks", "--colors", "256"])
        #expect(animated.status == 0, "\(animated.stderr)")
        // The first frame is the quadrant picture itself: the same preview as the still GIF's, drawn once.
        #expect(animated.stdout == still.stdout)
    }

    @Test func infoReportsFramesDurationAndLoops() async throws {
        let text = try await ImgviewProcess.run(["info", Self.fixture("anim.webp")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("format      WebP\n"))
        #expect(text.stdout.contains("frames      3, 0.6 s a pass, plays 3 times\n"))
        let forever = try await ImgviewProcess.run(["info", Self.fixture("anim.gif")])
        #expect(forever.stdout.contains("frames      3, 0.6 s a pass, plays forever\n"))
        let still = try await ImgviewProcess.run(["info", Self.fixture("q-8bit.avif")])
        #expect(still.stdout.contains("format      AVIF\n") && still.stdout.contains("frames      1 (still)\n"))

        let json = try await ImgviewProcess.run(["info", Self.fixture("anim.avif"), "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["frames"] as? Int == 3 && object["duration_ms"] as? Int == 600 && object["loop_count"] as? Int == 0)
        #expect(object["previewable"] as? Bool == true)
        let stillJSON = try await ImgviewProcess.run(["info", Self.fixture("q.gif"), "--json"])
        let stillObject = try #require(try JSONSerialization.jsonObject(with: Data(stillJSON.stdout.utf8)) as? [String: Any])
        #expect(stillObject["frames"] as? Int == 1 && stillObject["duration_ms"] is NSNull && stillObject["loop_count"] is NSNull)
    }

    @Test func recognisedFormatsAreDescribedAndTheirPreviewSaysWhy() async throws {
        let info = try await ImgviewProcess.run(["info", Self.fixture("q.tif")])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("format      TIFF (recognised; imgview cannot preview it)\n"))
        #expect(info.stdout.contains("size        16×12\n"))
        let show = try await ImgviewProcess.run(["show", Self.fixture("q.tif")])
        #expect(show.status == 7 && show.stdout.isEmpty)
        #expect(
            show.stderr.contains(
                "unsupported format: TIFF images cannot be previewed (imgview previews JPEG, PNG, GIF, WebP, AVIF, BMP, ICO and QOI)"))

        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("logo.svg")
        try Data(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"/>"#.utf8).write(to: svg)
        // An SVG has no pixel size to describe: info says what it is, and that it cannot be previewed.
        let svgInfo = try await ImgviewProcess.run(["info", svg.path])
        #expect(svgInfo.status == 7 && svgInfo.stderr.contains("unsupported format: SVG images cannot be previewed"), "\(svgInfo.stderr)")
    }

    /// A TIFF sent as image/tiff is an image: downloaded, cached with its size, and kept when a preview cannot be made.
    @Test func getAndTheCacheKeepImagesImgviewCannotPreview() async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path]
        let tiff = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("q.tif")))
        let avif = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("anim.avif")))
        server.publish(.data(tiff, contentType: "image/tiff", cacheControl: "max-age=3600"), at: "/scans/page.tif")
        server.publish(.data(avif, contentType: "image/avif", cacheControl: "max-age=3600"), at: "/anim.avif")
        try await stopping(server) {
            let url = server.url(for: "/scans/page.tif").absoluteString
            let get = try await ImgviewProcess.run(
                ["get", url, server.url(for: "/anim.avif").absoluteString], environment: environment, directory: folder)
            #expect(get.status == 0, "\(get.stderr)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("page.tif")) == tiff)
            #expect(try Data(contentsOf: folder.appendingPathComponent("anim.avif")) == avif)

            let show = try await ImgviewProcess.run(["show", url], environment: environment)
            #expect(show.status == 7 && show.stderr.contains("unsupported format: TIFF"))
            let list = try await ImgviewProcess.run(["cache", "ls"], environment: environment)
            let rows = list.stdout.split(separator: "\n").map {
                $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            }
            let row = try #require(rows.first { $0.count > 4 && $0[1] == url })
            #expect(row[3] == "tiff" && row[4] == "16x12", "kept after the failed preview, with its size")
            #expect(rows.contains { $0.count > 4 && $0[3] == "avif" && $0[4] == "16x12" })

            // Served from the cache: the server saw each URL once.
            let info = try await ImgviewProcess.run(["info", url], environment: environment)
            #expect(info.stdout.contains("TIFF") && info.stdout.contains("disk"), "\(info.stdout)")
            #expect(server.requests(for: "/scans/page.tif").count == 1)
        }
    }
}
