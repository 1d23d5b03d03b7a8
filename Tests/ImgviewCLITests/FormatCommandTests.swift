import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

/// Every format through `show` and `info`, and through `get`, the cache and `show` over HTTP, as a
/// user runs them.
@Suite("Image formats on the command line")
struct FormatCommandTests {
    static func fixture(_ name: String) -> String { Fixtures.path(name) }

    @Test(arguments: [
        "q.gif", "q-alpha.webp", "q-10bit.avif", "q-24-topdown.bmp", "hopper.webp", "hopper.avif", "q.qoi", "hopper.ico", "q.cur",
        "q-lzw.tif", "hopper.tif", "hopper.heic", "thumb.heic", "q.jxl", "hopper.jxl", "q.svg", "text.svg", "anim.png",
    ])
    func showPreviewsEveryFormat(name: String) async throws {
        let result = try await ImgviewProcess.run(["show", Self.fixture(name), "--size", "16x6", "--mode", "ascii", "--colors", "none"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(!result.stdout.isEmpty && result.stdout.hasSuffix("\n"))
    }

    @Test(arguments: ["anim.gif", "anim.webp", "anim.avif", "anim.png", "anim.jxl"])
    func anAnimationIntoAPipeIsItsFirstFrame(name: String) async throws {
        let animated = try await ImgviewProcess.run(["show", Self.fixture(name), "--size", "16x6", "--mode", "blocks", "--colors", "256"])
        let still = try await ImgviewProcess.run(["show", Self.fixture("q.gif"), "--size", "16x6", "--mode", "blocks", "--colors", "256"])
        #expect(animated.status == 0, "\(animated.stderr)")
        // The first frame is the quadrant picture itself: the same preview as the still GIF's, drawn once.
        #expect(animated.stdout == still.stdout)
    }

    /// A JPEG recompressed by cjxl, in a box smaller than it: rebuilt and decoded as the JPEG it was,
    /// so its preview is the JPEG's own, to the byte (decoded as pixels by libjxl, it differs).
    @Test func aRecompressedJPEGPreviewsAsItsJPEG() async throws {
        let arguments = ["--size", "8x3", "--mode", "blocks", "--colors", "full"]
        let jxl = try await ImgviewProcess.run(["show", Self.fixture("camera-exif.jxl")] + arguments)
        let jpeg = try await ImgviewProcess.run(["show", Self.fixture("camera-exif.jpg")] + arguments)
        #expect(jxl.status == 0 && jxl.stderr.isEmpty, "\(jxl.stderr)")
        #expect(!jxl.stdout.isEmpty && jxl.stdout == jpeg.stdout)
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

    /// A document of several pages: `info` counts them, `show` prints the first or the one asked for.
    @Test func pagesAreCountedAndShownOneAtATime() async throws {
        let info = try await ImgviewProcess.run(["info", Self.fixture("pages.tif")])
        #expect(info.status == 0 && info.stdout.contains("pages       3, shown one at a time\n"), "\(info.stdout)")
        let json = try await ImgviewProcess.run(["info", "--json", Self.fixture("pages.heic")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["pages"] as? Int == 2 && object["previewable"] as? Bool == true)
        func show(_ extra: [String]) async throws -> String {
            let result = try await ImgviewProcess.run(
                ["show", Self.fixture("pages.tif"), "--size", "8x3", "--mode", "blocks", "--colors", "256"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let first = try await show([])
        #expect(try await show(["--page", "1"]) == first)
        let second = try await show(["--page", "2"])
        #expect(second != first && second.contains("38;5;46"), "page 2 starts green")
        #expect(try await show(["--page", "9"]) == (try await show(["--page", "3"])), "past the last page, the last")
        let zero = try await ImgviewProcess.run(["show", Self.fixture("pages.tif"), "--page", "0"])
        #expect(zero.status != 0 && zero.stderr.contains("--page"))
    }

    /// An SVG has a size of its own or none: `info` says which, and that it is drawn at any size.
    @Test func svgIsDescribedAsScalable() async throws {
        let sized = try await ImgviewProcess.run(["info", Self.fixture("q.svg")])
        #expect(sized.status == 0 && sized.stdout.contains("size        16×12 (scalable)\n"), "\(sized.stdout)")
        let shape = try await ImgviewProcess.run(["info", "--json", Self.fixture("q-viewbox.svg")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shape.stdout.utf8)) as? [String: Any])
        #expect(object["scalable"] as? Bool == true && object["width"] is NSNull)
        // Drawn for the box: a 16×12 picture fills 64 columns as sharply as 8.
        let wide = try await ImgviewProcess.run(["show", Self.fixture("q.svg"), "--size", "64x12", "--mode", "blocks", "--colors", "256"])
        #expect(wide.status == 0 && wide.stdout.split(separator: "\n").count >= 12)
    }

    /// A TIFF sent as image/tiff is an image: downloaded, cached with its size, and previewed from the cache.
    @Test func getTheCacheAndShowTakeEveryFormat() async throws {
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

            let show = try await ImgviewProcess.run(["show", url, "--size", "8x3", "--mode", "ascii"], environment: environment)
            #expect(show.status == 0 && !show.stdout.isEmpty, "\(show.stderr)")
            let list = try await ImgviewProcess.run(["cache", "ls"], environment: environment)
            let rows = list.stdout.split(separator: "\n").map {
                $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            }
            let row = try #require(rows.first { $0.count > 4 && $0[1] == url })
            #expect(row[3] == "tiff" && row[4] == "16x12", "kept, with its size")
            #expect(rows.contains { $0.count > 4 && $0[3] == "avif" && $0[4] == "16x12" })

            // Served from the cache: the server saw each URL once.
            let info = try await ImgviewProcess.run(["info", url], environment: environment)
            #expect(info.stdout.contains("TIFF") && info.stdout.contains("disk"), "\(info.stdout)")
            #expect(server.requests(for: "/scans/page.tif").count == 1)
        }
    }
}
