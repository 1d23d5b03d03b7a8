import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// SPEC.md's "Failure is part of the contract", one row per bad input: the real binary against the
/// loopback server, asserting the one-line message, the exit code, and that nothing was written
/// or cached (or, where the input is a damaged cache, that the damage is gone).
///
/// Network rows run with the default retries (3) and say how long the failure may take: what no
/// second try can mend fails at once (well under the 2.8 s the three backoffs take at least), what
/// can is tried four times.
@Suite("Every bad input in SPEC.md")
struct BadInputTableTests {
    /// A folder to run in, a cache, and a server publishing one good JPEG at `/photos/hopper.jpg`.
    struct Context: Sendable {
        let server: LoopbackServer
        let folder: URL
        var cache: String { folder.appendingPathComponent("cache").path }
        var environment: [String: String] { ["IMGVIEW_CACHE_DIR": cache] }
        var hopper: String { server.url(for: "/photos/hopper.jpg").absoluteString }

        func url(_ path: String) -> String { server.url(for: path).absoluteString }

        func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> ImgviewProcess.Result {
            try await ImgviewProcess.run(arguments, environment: environment.merging(extra) { $1 }, directory: folder)
        }

        /// Writes `text` into `input/` in the working folder (catalogs, say) and returns its path.
        func write(_ text: String, to name: String) throws -> String {
            let inputs = folder.appendingPathComponent("input")
            try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
            let url = inputs.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }

        func publish(_ data: Data, at path: String, contentType: String = "image/jpeg") {
            server.publish(.data(data, contentType: contentType), at: path)
        }
    }

    /// What one row expects.
    struct Expectation: Sendable {
        var status: Int32
        /// The whole of stderr is this one line (prefix match when it ends in "…"); nil: stderr is empty.
        var message: String?
        /// Files the command leaves in the working folder besides those the row put there.
        var writes: [String] = []
        /// Entries the cache holds afterwards.
        var cachedEntries = 0
        /// How long the command may take, from start to exit.
        var takes: ClosedRange<Duration>?
    }

    /// Shorter than the three retries' backoff (0.5, 1 and 2 s, each ±20%) could ever be.
    static let atOnce: ClosedRange<Duration> = .zero ... .milliseconds(2500)
    /// At least the three retries' backoff, and not much more.
    static func retried(plus extra: Duration = .zero) -> ClosedRange<Duration> {
        (.milliseconds(2800) + extra)...(.seconds(12) + extra)
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        /// SPEC.md's words for the input.
        let label: String
        let run: @Sendable (Context) async throws -> (ImgviewProcess.Result, Expectation)
        var testDescription: String { label }
    }

    static let hopperBytes = try! Data(
        contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))
    static let bomb = try! Data(
        contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Tests/ImgviewCodecsTests/Fixtures/bomb.png"))

    /// A GIF of `frames` one-pixel frames on a `width × height` logical screen: a few bytes a frame.
    static func frameBomb(width: Int, height: Int, frames: Int) -> Data {
        let size = [width & 0xFF, width >> 8, height & 0xFF, height >> 8].map(UInt8.init)
        let screen = Data("GIF89a".utf8) + size + [0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        // A graphic control block (20 ms), a 1×1 image descriptor, and its LZW data: one pixel of colour 0.
        let frame = Data([0x21, 0xF9, 4, 0, 2, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0])
        return screen + Data(repeatElement(frame, count: frames).joined()) + [0x3B]
    }

    static let table: [BadInput] = [
        BadInput(label: "unknown name") { context in
            let result = try await context.run(["get", "nosuch"])
            return (result, Expectation(status: 4, message: "imgview: no image called \"nosuch\" in the catalog and no such file…"))
        },
        BadInput(label: "unknown name, to show") { context in
            let result = try await context.run(["show", "nosuch"])
            return (result, Expectation(status: 4, message: "imgview: no image called \"nosuch\" in the catalog and no such file…"))
        },
        BadInput(label: "malformed URL") { context in
            let result = try await context.run(["get", "http://"])
            return (result, Expectation(status: 2, message: "imgview: invalid URL \"http://\" (use http, https or file)"))
        },
        BadInput(label: "URL of a scheme imgview does not fetch") { context in
            let result = try await context.run(["show", "ftp://example.org/a.jpg"])
            return (result, Expectation(status: 2, message: "imgview: invalid URL \"ftp://example.org/a.jpg\" (use http, https or file)"))
        },
        BadInput(label: "malformed catalog: an invalid name") { context in
            let path = try context.write(#"{"images": [{"name": "Bad Name", "url": "a.jpg"}]}"#, to: "catalog.json")
            let result = try await context.run(["--catalog", path, "get", "--all"])
            return (result, Expectation(status: 3, message: "imgview: catalog \(path), entry 1 (\"Bad Name\"): invalid name…"))
        },
        BadInput(label: "malformed catalog: not JSON") { context in
            let path = try context.write("images: a.jpg", to: "catalog.json")
            let result = try await context.run(["--catalog", path, "list"])
            return (result, Expectation(status: 3, message: "imgview: catalog \(path): is not valid JSON…"))
        },
        BadInput(label: "malformed catalog: a remote page whose next loops back") { context in
            let page = "{\"images\": [{\"name\": \"a\", \"url\": \"a.jpg\"}], \"next\": \"\(context.url("/catalog.json"))\"}"
            context.publish(Data(page.utf8), at: "/catalog.json", contentType: "application/json")
            let result = try await context.run(["--catalog", context.url("/catalog.json"), "list"])
            return (result, Expectation(status: 3, message: "imgview: catalog \(context.url("/catalog.json"))…"))
        },
        BadInput(label: "HTTP 404") { context in
            context.server.setFaults([.status(404)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            return (result, Expectation(status: 4, message: "imgview: \(context.hopper): HTTP 404 (not found)"))
        },
        BadInput(label: "HTTP 410") { context in
            context.server.setFaults([.status(410)], for: "/photos/hopper.jpg")
            let result = try await context.run(["show", context.hopper])
            return (result, Expectation(status: 4, message: "imgview: \(context.hopper): HTTP 410 (not found)"))
        },
        BadInput(label: "HTTP 403") { context in
            context.server.setFaults([.status(403)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            return (result, Expectation(status: 6, message: "imgview: \(context.hopper): HTTP 403 (forbidden)"))
        },
        BadInput(label: "HTTP 500, retries exhausted") { context in
            context.server.setFaults([.status(500), .status(502), .status(503), .status(504)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            #expect(context.server.requests(for: "/photos/hopper.jpg").map(\.status) == [500, 502, 503, 504])
            return (result, Expectation(status: 6, message: "imgview: \(context.hopper): HTTP 504 (gateway timeout)", takes: retried()))
        },
        BadInput(label: "refused connection") { context in
            let result = try await context.run(["get", "http://127.0.0.1:1/x.jpg"])
            return (result, Expectation(status: 5, message: "imgview: http://127.0.0.1:1/x.jpg: connection refused", takes: atOnce))
        },
        BadInput(label: "unknown host") { context in
            let result = try await context.run(["get", "http://nonexistent.invalid/x.jpg"])
            return (
                result,
                Expectation(
                    status: 5, message: "imgview: http://nonexistent.invalid/x.jpg: host not found (nonexistent.invalid)", takes: atOnce)
            )
        },
        BadInput(label: "https answered by a plain-HTTP server") { context in
            let https = "https://127.0.0.1:\(context.server.port)/photos/hopper.jpg"
            let result = try await context.run(["get", https])
            return (result, Expectation(status: 5, message: "imgview: \(https): TLS failure…", takes: atOnce))
        },
        BadInput(label: "redirect to a file: URL") { context in
            context.server.setFaults([.redirect(to: "file:///etc/passwd")], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            #expect(context.server.requests(for: "/etc/passwd").isEmpty)
            return (
                result,
                Expectation(
                    status: 5,
                    message: "imgview: \(context.hopper): redirected to a file: URL, which imgview does not follow (http and https only)",
                    takes: atOnce)
            )
        },
        BadInput(label: "redirect loop") { context in
            context.server.setFaults([.redirect(to: "/photos/hopper.jpg")], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            return (result, Expectation(status: 5, message: "imgview: \(context.hopper): more than 10 redirects", takes: atOnce))
        },
        BadInput(label: "timeout: no answer") { context in
            context.server.setFaults([.delay(.seconds(10))], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper, "--connect-timeout", "0.5"])
            #expect(context.server.requests(for: "/photos/hopper.jpg").count == 4)
            return (
                result,
                Expectation(
                    status: 5, message: "imgview: \(context.hopper): timed out (no answer within 0.5 s)", takes: retried(plus: .seconds(2)))
            )
        },
        BadInput(label: "timeout: a body too slow for --max-time") { context in
            context.server.setFaults([.slowBody(chunkSize: 1000, delayPerChunk: .milliseconds(100))], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper, "--max-time", "1"])
            return (
                result,
                Expectation(
                    status: 5, message: "imgview: \(context.hopper): timed out (overall limit of 1 s)", takes: .seconds(1) ... .seconds(2.5)
                )
            )
        },
        BadInput(label: "truncated body") { context in
            context.server.setFaults([.truncated(after: 5000)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            #expect(context.server.requests(for: "/photos/hopper.jpg").count == 4)
            return (result, Expectation(status: 5, message: "imgview: \(context.hopper): transfer cut short after…", takes: retried()))
        },
        BadInput(label: "truncated body with no Content-Length") { context in
            let raw = try RawResponseServer()
            defer { raw.stop() }
            raw.respondCloseDelimited(at: "/cut.jpg", body: hopperBytes, sent: 30_000)
            let url = raw.url(for: "/cut.jpg").absoluteString
            let result = try await context.run(["get", url])
            #expect(raw.requestCount(for: "/cut.jpg") == 4)
            return (
                result,
                Expectation(
                    status: 5,
                    message: "imgview: \(url): transfer cut short after 30000 bytes (the connection closed before the image's end)",
                    takes: retried())
            )
        },
        // Answers that look like an image's and are not (issue 26): refused at once and never cached.
        BadInput(label: "gzip body cut short, its Content-Length matching what was sent") { context in
            context.server.setFaults([.encoded(.gzip, cutAfter: 20_000)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            let message = "imgview: \(context.hopper): bad response from the server (the gzip body stops before the end of its gzip stream)"
            return (result, Expectation(status: 5, message: message, takes: atOnce))
        },
        BadInput(label: "206 to a request for the whole image") { context in
            context.server.setFaults([.partialContent(0..<20_000)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            let message = "imgview: \(context.hopper): HTTP 206 (partial content) to a request for the whole image"
            return (result, Expectation(status: 6, message: message, takes: atOnce))
        },
        BadInput(label: "304 carrying another image's strong ETag") { context in
            context.server.publish(.data(hopperBytes, contentType: "image/jpeg", cacheControl: "max-age=0"), at: "/photos/hopper.jpg")
            #expect(try await context.run(["get", context.hopper, "-o", "first.jpg"]).status == 0)
            let changed = hopperBytes + Data([0xFF, 0xD9])
            let tag = ServedResource.data(changed, contentType: "image/jpeg").etag!
            context.server.publish(
                .data(changed, contentType: "image/jpeg", cacheControl: "max-age=60"), at: "/photos/hopper.jpg",
                faults: [.status(304, headers: ["ETag": tag, "Cache-Control": "max-age=60"]), .none])
            let result = try await context.run(["get", context.hopper, "-o", "second.jpg"])
            // Not the old bytes under the new tag: the stored image is not renewed, the new one is fetched.
            #expect(try Data(contentsOf: context.folder.appendingPathComponent("second.jpg")) == changed)
            #expect(context.server.requests(for: "/photos/hopper.jpg").map(\.status) == [200, 304, 200])
            return (result, Expectation(status: 0, message: nil, writes: ["first.jpg", "second.jpg"], cachedEntries: 1))
        },
        BadInput(label: "Vary: *") { context in
            context.server.setFaults([.headers(["Vary": "*", "Cache-Control": "max-age=3600"])], for: "/photos/hopper.jpg")
            #expect(try await context.run(["get", context.hopper, "-o", "first.jpg"]).status == 0)
            let result = try await context.run(["get", context.hopper, "-o", "second.jpg"])
            #expect(context.server.requests(for: "/photos/hopper.jpg").count == 2)
            return (result, Expectation(status: 0, message: nil, writes: ["first.jpg", "second.jpg"], cachedEntries: 0))
        },
        BadInput(label: "Content-Length of 10^26") { context in
            let raw = try RawResponseServer()
            defer { raw.stop() }
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: 100000000000000000000000000\r\n\r\n"
            raw.respond(at: "/huge.jpg", with: Data(head.utf8) + hopperBytes)
            let url = raw.url(for: "/huge.jpg").absoluteString
            let result = try await context.run(["get", url])
            let message =
                "imgview: \(url): bad response from the server (a Content-Length of 100000000000000000000000000 bytes, more than any body can hold)"
            return (result, Expectation(status: 5, message: message, takes: atOnce))
        },
        BadInput(label: "two different Content-Lengths") { context in
            let raw = try RawResponseServer()
            defer { raw.stop() }
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(hopperBytes.count)\r\nContent-Length: 5\r\n\r\n"
            raw.respond(at: "/two.jpg", with: Data(head.utf8) + hopperBytes)
            let url = raw.url(for: "/two.jpg").absoluteString
            let result = try await context.run(["get", url])
            let message = "imgview: \(url): bad response from the server (two different Content-Lengths, \(hopperBytes.count) and 5)"
            return (result, Expectation(status: 5, message: message, takes: atOnce))
        },
        BadInput(label: "Retry-After that overflows") { context in
            context.server.setFaults([.status(503, headers: ["Retry-After": "99999999999999999999"]), .none], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            #expect(context.server.requests(for: "/photos/hopper.jpg").count == 1)
            let message =
                "imgview: \(context.hopper): HTTP 503 (service unavailable), and the server asks to wait 99999999999999999999 s before trying again: longer than imgview waits"
            return (result, Expectation(status: 6, message: message, takes: atOnce))
        },
        BadInput(label: "a status line that is not HTTP") { context in
            let raw = try RawResponseServer()
            defer { raw.stop() }
            raw.respond(at: "/hello.jpg", with: Data("HELLO THERE\r\nContent-Length: 2\r\n\r\nhi".utf8))
            let url = raw.url(for: "/hello.jpg").absoluteString
            let result = try await context.run(["get", url])
            let message = "imgview: \(url): bad response from the server (the answer does not start with an HTTP status line)"
            return (result, Expectation(status: 5, message: message, takes: atOnce))
        },
        BadInput(label: "304 with nothing cached") { context in
            context.server.setFaults([.status(304)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            let message = "imgview: \(context.hopper): HTTP 304 (not modified) to a request that was not conditional"
            return (result, Expectation(status: 6, message: message, takes: atOnce))
        },
        BadInput(label: "302 without Location") { context in
            context.server.setFaults([.status(302)], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            return (
                result,
                Expectation(
                    status: 6, message: "imgview: \(context.hopper): HTTP 302 (a redirect with no Location to follow)", takes: atOnce)
            )
        },
        BadInput(label: "a header line of a megabyte") { context in
            let raw = try RawResponseServer()
            defer { raw.stop() }
            let head = "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\nhi"
            raw.respond(at: "/long.jpg", with: Data(head.utf8))
            let url = raw.url(for: "/long.jpg").absoluteString
            let result = try await context.run(["get", url])
            let message = "imgview: \(url): bad response from the server (a header line longer than 100 kB)"
            return (result, Expectation(status: 5, message: message, takes: atOnce))
        },
        BadInput(label: "body that is not an image") { context in
            context.server.setFaults([.body(Data("<html>".utf8), contentType: "text/html")], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            return (result, Expectation(status: 7, message: "imgview: \(context.hopper): not an image (text/html)"))
        },
        BadInput(label: "--offline and not cached") { context in
            let result = try await context.run(["--offline", "get", context.hopper])
            #expect(context.server.requests().isEmpty)
            return (
                result, Expectation(status: 10, message: "imgview: \(context.hopper): not in the cache, and --offline forbids the network")
            )
        },
        BadInput(label: "body over --max-filesize") { context in
            let result = try await context.run(["get", context.hopper, "--max-filesize", "10k"])
            return (result, Expectation(status: 7, message: "imgview: \(context.hopper): larger than the download limit of 10 kB"))
        },
        BadInput(label: "corrupt image") { context in
            // A whole file (APP0, then garbage where the frame should start, then EOI), not a short one.
            context.publish(
                Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00]) + Data("garbage, not a JPEG at all".utf8) + Data([0xFF, 0xD9]),
                at: "/corrupt.jpg")
            let result = try await context.run(["show", context.url("/corrupt.jpg"), "--size", "10x5"])
            return (result, Expectation(status: 7, message: "imgview: corrupt JPEG image: …"))
        },
        BadInput(label: "truncated image") { context in
            context.publish(hopperBytes.prefix(300), at: "/cut.jpg")
            let result = try await context.run(["info", context.url("/cut.jpg")])
            return (result, Expectation(status: 7, message: "imgview: truncated JPEG image: the data ends before any pixel"))
        },
        BadInput(label: "an AVIF whose AV1 data makes dav1d speak") { context in
            var avif = try Fixtures.data("hopper.avif")
            let mdat = try #require(avif.firstRange(of: Data("mdat".utf8)))
            avif[mdat.upperBound + 4] = 0xFF
            context.publish(avif, at: "/bad.avif", contentType: "image/avif")
            let result = try await context.run(["show", context.url("/bad.avif"), "--size", "10x5"])
            let message =
                "imgview: corrupt AVIF image: Decoding of color planes failed: tile->codec->getNextImage() failed "
                + "(dav1d: Error parsing sequence header; Error parsing OBU data)"
            return (result, Expectation(status: 7, message: message))
        },
        BadInput(label: "image whose declared size would need gigabytes") { context in
            context.publish(bomb, at: "/bomb.png", contentType: "image/png")
            let result = try await context.run(["show", context.url("/bomb.png"), "--size", "10x5"])
            return (
                result,
                Expectation(status: 7, message: "imgview: image too large: 100000×100000 is 10000 megapixels, the limit is 100")
            )
        },
        BadInput(label: "animation whose frames would need gigabytes (10,000 frames)") { context in
            context.publish(frameBomb(width: 64, height: 64, frames: 10_000), at: "/frames.gif", contentType: "image/gif")
            let result = try await context.run(["show", context.url("/frames.gif"), "--size", "10x5", "--colors", "none"])
            // Into a pipe only the first frame is decoded (on a terminal what fits plays, with a
            // warning: AnimationDecoderTests); the file itself is a good GIF, so it stays cached.
            return (result, Expectation(status: 0, message: nil, cachedEntries: 1))
        },
        BadInput(label: "animation whose canvas would need gigabytes") { context in
            context.publish(frameBomb(width: 65535, height: 65535, frames: 2), at: "/screen.gif", contentType: "image/gif")
            let result = try await context.run(["show", context.url("/screen.gif"), "--size", "10x5"])
            let message = "imgview: image too large: 65535×65535 is 4294.8 megapixels, the limit is 100"
            return (result, Expectation(status: 7, message: message))
        },
        BadInput(label: "TIFF whose one strip would need more than libtiff may allocate") { context in
            context.publish(
                HostileImages.tiff(width: 10_000, height: 10_000, rowsPerStrip: 10_000), at: "/scan.tif", contentType: "image/tiff")
            let result = try await context.run(["show", context.url("/scan.tif"), "--size", "10x5"])
            let message =
                "imgview: corrupt TIFF image: Memory allocation of 100000000 bytes is beyond the 67108864 byte limit defined in open options"
            return (result, Expectation(status: 7, message: message))
        },
        BadInput(label: "SVG of more elements than librsvg is given") { context in
            let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\">" + String(repeating: "<g/>", count: 40_001) + "</svg>"
            context.publish(Data(svg.utf8), at: "/icon.svg", contentType: "image/svg+xml")
            let result = try await context.run(["show", context.url("/icon.svg"), "--size", "10x5"])
            return (result, Expectation(status: 7, message: "imgview: corrupt SVG image: too complex: more than 40000 elements"))
        },
        BadInput(label: "cache file damaged on disk: a blob") { context in
            let first = try await context.run(["get", context.hopper, "-o", "first.jpg"])
            #expect(first.status == 0)
            try FileManager.default.removeItem(atPath: context.folder.appendingPathComponent("first.jpg").path)
            let cache = try DiskCache(directory: URL(fileURLWithPath: context.cache))
            let entry = try #require(cache.entries().first)
            // The output was a link to the blob; write a new file in its place, as damage would.
            let blob = cache.blobURL(for: entry)
            try FileManager.default.removeItem(at: blob)
            try Data("not the image any more".utf8).write(to: blob)
            let result = try await context.run(["cache", "verify"])
            #expect(result.stdout.contains("removed damaged-blob v1/blobs/"))
            return (result, Expectation(status: 9, message: "imgview: cache verify: found and removed 1 problem…"))
        },
        BadInput(label: "cache file damaged on disk: metadata, healed by the next get") { context in
            let first = try await context.run(["get", context.hopper, "-o", "first.jpg"])
            #expect(first.status == 0)
            let entries = URL(fileURLWithPath: context.cache).appendingPathComponent("v1/entries")
            for name in try FileManager.default.contentsOfDirectory(atPath: entries.path) {
                try Data("{\"url\": 12".utf8).write(to: entries.appendingPathComponent(name))
            }
            let result = try await context.run(["get", context.hopper, "-o", "second.jpg"])
            #expect(context.server.requests(for: "/photos/hopper.jpg").count == 2)
            #expect(try Data(contentsOf: context.folder.appendingPathComponent("second.jpg")) == hopperBytes)
            return (
                result,
                Expectation(status: 0, message: nil, writes: ["first.jpg", "second.jpg"], cachedEntries: 1)
            )
        },
        BadInput(label: "cache folder that is not a folder") { context in
            let path = try context.write("", to: "not-a-folder")
            let result = try await context.run(["get", context.hopper], environment: ["IMGVIEW_CACHE_DIR": path])
            return (result, Expectation(status: 9, message: "imgview: cache \(path): cannot be used: \(path) is not a folder"))
        },
        BadInput(label: "two imgview processes on one cache") { context in
            let urls = (0..<6).map { index in
                context.publish(hopperBytes + Data(repeating: UInt8(index), count: 100), at: "/p/\(index).jpg")
                return context.url("/p/\(index).jpg")
            }
            for name in ["a", "b"] {
                try FileManager.default.createDirectory(at: context.folder.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            async let first = context.run(["get"] + urls + ["-O", "a"])
            async let second = context.run(["get"] + urls.reversed() + ["-O", "b"])
            let (a, b) = try await (first, second)
            #expect(a.status == 0, "\(a.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: context.folder.appendingPathComponent("a").path).count == 6)
            #expect(try FileManager.default.contentsOfDirectory(atPath: context.folder.appendingPathComponent("b").path).count == 6)
            let verify = try await context.run(["cache", "verify"])
            #expect(verify.status == 0, "\(verify.stdout)")
            return (b, Expectation(status: 0, message: nil, writes: ["a", "b"], cachedEntries: 6))
        },
        BadInput(label: "Ctrl-C in the middle of a download") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGINT)
            return (result, Expectation(status: 130, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGTERM in the middle of a download") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGTERM)
            return (result, Expectation(status: 143, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGHUP while show downloads") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGHUP, command: "show")
            return (result, Expectation(status: 129, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGINT while info downloads") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGINT, command: "info")
            return (result, Expectation(status: 130, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGTERM while show downloads") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGTERM, command: "show")
            return (result, Expectation(status: 143, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGQUIT (Ctrl-\\) in the middle of a download") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGQUIT)
            return (result, Expectation(status: 131, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGQUIT while show downloads") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGQUIT, command: "show")
            return (result, Expectation(status: 131, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGQUIT while info downloads") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGQUIT, command: "info")
            return (result, Expectation(status: 131, message: "imgview: interrupted"))
        },
        BadInput(label: "SIGUSR1 while get downloads") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGUSR1)
            return (result, Expectation(status: 128 + SIGUSR1, message: "imgview: interrupted"))
        },
        BadInput(label: "a crash signal sent by kill while get downloads") { context in
            // Sent by another process, SIGSEGV is a request to end like any other, not a crash.
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let result = try await interrupted(context, signal: SIGSEGV)
            return (result, Expectation(status: 128 + SIGSEGV, message: "imgview: interrupted"))
        },
        BadInput(label: "kill -9 in the middle of a download") { context in
            context.server.setFaults([.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(50))], for: "/photos/hopper.jpg")
            let killed = try await interrupted(context, signal: SIGKILL)
            #expect(killed.status == SIGKILL)
            // The dead process's temporary file is swept away by the next one that uses the cache.
            let result = try await context.run(["cache", "prune"])
            return (result, Expectation(status: 0, message: nil))
        },
        BadInput(label: "escape sequences in a catalog title") { context in
            let catalog = "{\"images\": [{\"name\": \"a\", \"title\": \"\\u001b]0;owned\\u0007\\u001b[31mred\", \"url\": \"a.jpg\"}]}"
            let path = try context.write(catalog, to: "catalog.json")
            let result = try await context.run(["--catalog", path, "list"])
            #expect(result.stdout.contains("?]0;owned??[31mred"))
            return (result, Expectation(status: 0, message: nil))
        },
        BadInput(label: "escape sequences in a server's header") { context in
            context.server.setFaults(
                [.body(Data("<html>".utf8), contentType: "text/html\u{1B}[2J")], for: "/photos/hopper.jpg")
            let result = try await context.run(["get", context.hopper])
            return (result, Expectation(status: 7, message: "imgview: \(context.hopper): not an image (text/html?[2J)"))
        },
        BadInput(label: "a line separator in a catalog title") { context in
            let catalog = "{\"images\": [{\"name\": \"a\", \"title\": \"one\\u2028two\\u2029three\", \"url\": \"a.jpg\"}]}"
            let path = try context.write(catalog, to: "catalog.json")
            let result = try await context.run(["--catalog", path, "list"])
            #expect(result.stdout.contains("one?two?three"), "\(result.stdout)")
            return (result, Expectation(status: 0, message: nil))
        },
        BadInput(label: "a URL holding [ ] | and an escape") { context in
            context.publish(hopperBytes, at: "/a b[1]|c.jpg")
            let result = try await context.run(["get", context.url("/") + "a%20b[1]|c.jpg", "-o", "out.jpg"])
            #expect(context.server.requests().map(\.path) == ["/a b[1]|c.jpg"])
            return (result, Expectation(status: 0, message: nil, writes: ["out.jpg"], cachedEntries: 1))
        },
        BadInput(label: "escape sequences in a name") { context in
            let result = try await context.run(["get", "\u{1B}]0;owned\u{07}"])
            return (result, Expectation(status: 4, message: "imgview: no image called \"?]0;owned?\" in the catalog…"))
        },
        BadInput(label: "escape sequences in a URL's file name") { context in
            context.publish(hopperBytes, at: "/x\u{1B}[31m.jpg")
            let result = try await context.run(["get", context.url("/x%1B%5B31m.jpg")])
            #expect(result.stdout == context.folder.appendingPathComponent("x[31m.jpg").path + "\n")
            return (result, Expectation(status: 0, message: nil, writes: ["x[31m.jpg"], cachedEntries: 1))
        },
    ]

    /// Starts `command` (`get`, `show`, `info`) on the slow hopper, sends `signal` once part of the
    /// body arrived, and waits for the end.
    static func interrupted(_ context: Context, signal: Int32, command: String = "get") async throws -> ImgviewProcess.Result {
        // Started with the signal blocked, as a child of a thread of Swift's pool is: imgview must
        // take it all the same.
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, signal)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let started = Result {
            try ImgviewProcess.start([command, context.hopper], environment: context.environment, directory: context.folder)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let (process, stdout, stderr) = try started.get()
        async let out = readToEnd(stdout)
        async let err = readToEnd(stderr)
        try await eventually { (context.server.requests(for: "/photos/hopper.jpg").first?.bodyBytesSent ?? 0) > 4000 }
        kill(process.processIdentifier, signal)
        try await offPool { process.waitUntilExit() }
        return ImgviewProcess.Result(
            status: process.terminationStatus, stdout: String(decoding: await out, as: UTF8.self),
            stderr: String(decoding: await err, as: UTF8.self))
    }

    @Test(arguments: table)
    func badInput(_ row: BadInput) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        server.publish(.data(Self.hopperBytes, contentType: "image/jpeg"), at: "/photos/hopper.jpg")
        let context = Context(server: server, folder: folder)
        try await stopping(server) {
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
            let (result, expected) = try await row.run(context)

            #expect(result.status == expected.status, "\(row.label): \(result.stderr)")
            if let takes = expected.takes {
                #expect(takes.contains(result.elapsed), "\(row.label): took \(result.elapsed), expected \(takes)")
            }
            if let message = expected.message {
                #expect(
                    result.stderr.hasSuffix("\n") && result.errorLine.split(separator: "\n").count == 1, "\(row.label): \(result.stderr)")
                if message.hasSuffix("…") {
                    #expect(result.errorLine.hasPrefix(String(message.dropLast())), "\(row.label): \(result.errorLine)")
                } else {
                    #expect(result.errorLine == message, "\(row.label)")
                }
            } else {
                #expect(result.stderr.isEmpty, "\(row.label): \(result.stderr)")
            }
            // Nothing a server or a file said reaches the terminal raw (tabs separate `list`'s columns in a pipe).
            for text in [result.stdout, result.stderr] {
                #expect(!text.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" && $0 != "\t" }, "\(row.label): \(text)")
            }

            let after = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
            let written = after.subtracting(before).subtracting(["cache", "input"]).sorted()
            #expect(written == expected.writes.sorted(), "\(row.label)")
            let cache = URL(fileURLWithPath: context.cache)
            if FileManager.default.fileExists(atPath: cache.path) {
                let entries = try DiskCache(directory: cache).entries()
                #expect(entries.count == expected.cachedEntries, "\(row.label)")
                // Nothing half-written: no download in progress is left behind.
                // A transfer cut short may keep its bytes as a partial download (never an output), for the next fetch to continue.
                let temporary = ((try? FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("v1/tmp").path)) ?? [])
                    .filter { !PartialDownload.isPartial($0) }
                #expect(temporary.isEmpty, "\(row.label): \(temporary)")
            } else {
                #expect(expected.cachedEntries == 0, "\(row.label)")
            }
        }
    }
}
