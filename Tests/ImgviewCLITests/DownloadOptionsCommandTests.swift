import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `imgview get` with request headers, bodies over the cache's largest entry, `-R` and the
/// origin's extended attribute, against the loopback server.
@Suite("imgview get: headers, large bodies, file attributes")
struct DownloadOptionsCommandTests {
    static let jpeg = try! Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))

    /// A JPEG followed by `size` bytes of noise: still an image, as large as a test needs.
    static func large(_ size: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return jpeg + Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The extended attribute `name` of the file at `path`; nil when it has none.
    static func extendedAttribute(_ name: String, of path: String) -> String? {
        typealias GetAttribute = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getxattr") else { return nil }
        let getAttribute = unsafeBitCast(symbol, to: GetAttribute.self)
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { getAttribute(path, name, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    static func modificationTime(of path: String) throws -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { throw POSIXError(.ENOENT) }
        return status.st_mtim.tv_sec
    }

    static func linkCount(of path: String) throws -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { throw POSIXError(.ENOENT) }
        return Int(status.st_nlink)
    }

    // MARK: Request headers

    /// The `-H` headers go only to the origin of the URL they were given with: through a redirect
    /// that stays there, not to another port nor to another host name (`localhost` for
    /// `127.0.0.1`, the same server). `--user-agent` goes everywhere, `--referer` elsewhere as its
    /// origin alone, as a browser sends it.
    @Test(arguments: HTTPClients.built)
    func headersGivenStayWithTheirOrigin(client: String) async throws {
        let elsewhere = try await LoopbackServer.start()
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(elsewhere) {
            try await stopping(server) {
                elsewhere.publish(.data(Self.jpeg, contentType: "image/jpeg"), at: "/there.jpg")
                server.publish(.data(Self.jpeg, contentType: "image/jpeg"), at: "/here.jpg")
                server.publish(.data(Self.jpeg, contentType: "image/jpeg"), at: "/named.jpg")
                server.publish(
                    .data(Data(), contentType: "text/plain"), at: "/away.jpg",
                    faults: [.redirect(to: elsewhere.url(for: "/there.jpg").absoluteString)])
                server.publish(
                    .data(Data(), contentType: "text/plain"), at: "/by-name.jpg",
                    faults: [.redirect(to: "http://localhost:\(server.port)/named.jpg")])
                server.publish(.data(Data(), contentType: "text/plain"), at: "/near.jpg", faults: [.redirect(to: "/here.jpg")])
                let result = try await ImgviewProcess.run(
                    [
                        "get", server.url(for: "/away.jpg").absoluteString, server.url(for: "/near.jpg").absoluteString,
                        server.url(for: "/by-name.jpg").absoluteString, "--quiet",
                        "-H", "Authorization: Bearer secret", "--header", "Cookie: session=1", "-H", "X-Token:  t1 ",
                        "--referer", "http://example.org/gallery", "--user-agent", "tester/2", "-H", "Accept:",
                    ],
                    environment: ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path, "IMGVIEW_HTTP": client],
                    directory: folder)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try Data(contentsOf: folder.appendingPathComponent("away.jpg")) == Self.jpeg)
                #expect(try Data(contentsOf: folder.appendingPathComponent("by-name.jpg")) == Self.jpeg)

                for request in [
                    server.requests(for: "/away.jpg").first, server.requests(for: "/near.jpg").first,
                    server.requests(for: "/by-name.jpg").first, server.requests(for: "/here.jpg").first,
                ] {
                    let request = try #require(request)
                    #expect(request.header("authorization") == "Bearer secret", "\(request.path)")
                    #expect(request.header("cookie") == "session=1", "\(request.path)")
                    #expect(request.header("x-token") == "t1", "\(request.path)")
                    #expect(request.header("referer") == "http://example.org/gallery", "\(request.path)")
                    #expect(request.header("accept") != "image/*, */*;q=0.5", "-H 'Accept:' removes imgview's own")
                }
                let there = try #require(elsewhere.requests(for: "/there.jpg").first)
                let named = try #require(server.requests(for: "/named.jpg").first)
                for request in [there, named] {
                    #expect(request.header("authorization") == nil, "\(request.path): -H never goes to another origin")
                    #expect(request.header("cookie") == nil, "\(request.path)")
                    #expect(request.header("x-token") == nil, "\(request.path)")
                    #expect(request.header("referer") == "http://example.org/", "\(request.path)")
                    #expect(request.header("user-agent") == "tester/2", "\(request.path)")
                }
            }
        }
    }

    @Test(arguments: [
        (["-H", "X-Api-Key"], "imgview: -H \"X-Api-Key\": a header is 'Name: value'"),
        (["-H", "Bad Name: x"], "imgview: -H: \"Bad Name\" is not a header name"),
        (["-H", "Range: bytes=0-"], "imgview: -H Range: imgview sets this header itself (resuming)"),
        (["-H", "X-A: one\ntwo"], "imgview: -H X-A: a header value is one line without control characters"),
        (["--user-agent", "a\rb"], "imgview: --user-agent: a header value is one line without control characters"),
    ])
    func badHeadersAreOneLineUsageErrors(arguments: [String], message: String) async throws {
        let result = try await ImgviewProcess.run(["get", "http://127.0.0.1:9/a.jpg"] + arguments)
        #expect(result.status == ExitStatus.usage.rawValue)
        #expect(result.stderr == message + "\n")
        #expect(result.stdout.isEmpty)
    }

    // MARK: Bodies over the largest entry

    /// A body over `--cache-max-entry` is written once (strace: about its size in writes, no
    /// in-kernel copy, no read of it back for a hash), that file becomes the output by a link, and
    /// the cache keeps nothing of it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func aBodyOverTheLargestEntryIsWrittenOnceAndNotStored() async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = Self.large(8 << 20)
        try await stopping(server) {
            server.publish(.data(body, contentType: "image/jpeg"), at: "/big/photo.jpg")
            let url = server.url(for: "/big/photo.jpg").absoluteString
            let cache = folder.appendingPathComponent("cache")
            let environment = ["IMGVIEW_CACHE_DIR": cache.path]
            let log = folder.appendingPathComponent("strace.log")
            let result = try await ImgviewProcess.run(
                [
                    "-f", "-qq", "-e", "trace=write,pwrite64,writev,read,pread64,copy_file_range,linkat,ioctl,sendfile", "-o", log.path,
                    ImgviewProcess.binary.path, "get", url, "--cache-max-entry", "1M", "--quiet", "--json",
                ],
                executable: URL(fileURLWithPath: "/usr/bin/strace"), environment: environment, directory: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let output = folder.appendingPathComponent("photo.jpg")
            #expect(try Data(contentsOf: output) == body)
            #expect(try Self.linkCount(of: output.path) == 1, "a file of its own: the cache keeps no name for it")
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(report?["status"] as? String == "downloaded")
            #expect(report?["sha256"] is NSNull, "no digest for a body that was not hashed")
            #expect(report?["bytes"] as? Int == body.count)

            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            // A call another thread interrupted ends on a `<... write resumed>) = N` line of its own.
            func bytes(of calls: [String]) -> Int {
                lines.filter { line in calls.contains { line.contains("\($0)(") || line.contains("<... \($0) resumed>") } }
                    .compactMap { line in line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
                    .filter { $0 > 0 }.reduce(0, +)
            }
            let written = bytes(of: ["write", "pwrite64", "writev"])
            #expect(written >= body.count && written < body.count + (1 << 20), "one write of the body: \(written) bytes written")
            #expect(bytes(of: ["read", "pread64"]) < 2 << 20, "no hashing pass over the body")
            #expect(!lines.contains { $0.contains("copy_file_range(") || $0.contains("sendfile(") }, "no second copy")
            #expect(!lines.contains { $0.contains("ioctl(") && $0.contains("FICLONE") }, "no clone")
            #expect(lines.filter { $0.contains("linkat(") && $0.contains("\"photo.jpg\"") }.count == 1)

            let listing = try await ImgviewProcess.run(["cache", "ls", "--json"], environment: environment)
            let entries = (try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])?["entries"] as? [Any]
            #expect(entries?.isEmpty == true, "\(listing.stdout)")
            let temporary = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("v1/tmp").path)
            #expect(temporary.isEmpty, "\(temporary)")

            // The same bytes again: up to date, decided by size and then by hashing both.
            let again = try await ImgviewProcess.run(
                ["get", url, "--cache-max-entry", "1M", "--quiet", "--json"], environment: environment, directory: folder)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("\"status\":\"up-to-date\""), "\(again.stdout)")
            #expect(server.requests(for: "/big/photo.jpg").count == 2, "not cached: fetched again")

            // Under the largest entry, the same body is stored and has its digest.
            let stored = try await ImgviewProcess.run(
                ["get", url, "-o", "stored.jpg", "--quiet", "--json"], environment: environment, directory: folder)
            #expect(stored.status == 0, "\(stored.stderr)")
            #expect(!stored.stdout.contains("\"sha256\":null"), "\(stored.stdout)")
            let relisted = try await ImgviewProcess.run(["cache", "ls"], environment: environment)
            #expect(relisted.stdout.split(separator: "\n").count == 1, "\(relisted.stdout)")

            // Never more than an eighth of the cache: 8 MiB keeps bodies up to 1 MiB.
            let small = try await ImgviewProcess.run(
                [
                    "get", url, "-o", "small-cache.jpg", "--quiet", "--json", "--cache-size", "8M", "--cache-dir",
                    folder.appendingPathComponent("other").path,
                ],
                directory: folder)
            #expect(small.status == 0, "\(small.stderr)")
            #expect(small.stdout.contains("\"sha256\":null"), "\(small.stdout)")
        }
    }

    /// With the cache on another file system (tmpfs) than the output, the body cannot be linked:
    /// it is copied, whole and a file of its own, and nothing stays in the cache.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/shm")))
    func aBodyOverTheLargestEntryIsCopiedAcrossFileSystems() async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        let cache = URL(fileURLWithPath: "/dev/shm/imgview-test-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: cache)
        }
        let body = Self.large(3 << 20)
        try await stopping(server) {
            server.publish(.data(body, contentType: "image/jpeg"), at: "/big/photo.jpg")
            let result = try await ImgviewProcess.run(
                ["get", server.url(for: "/big/photo.jpg").absoluteString, "--cache-max-entry", "1M", "--quiet"],
                environment: ["IMGVIEW_CACHE_DIR": cache.path], directory: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let output = folder.appendingPathComponent("photo.jpg")
            #expect(try Data(contentsOf: output) == body)
            #expect(try Self.linkCount(of: output.path) == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("v1/tmp").path).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("v1/entries").path).isEmpty)
        }
    }

    @Test func theLargestEntryIsASettingLikeTheCachesOthers() async throws {
        let result = try await ImgviewProcess.run(
            ["config"], environment: ["IMGVIEW_CACHE_MAX_ENTRY": "300M", "IMGVIEW_NO_CONFIG": "1"])
        #expect(result.stdout.contains("cache-max-entry\t300 MiB\tIMGVIEW_CACHE_MAX_ENTRY"), "\(result.stdout)")
        let bad = try await ImgviewProcess.run(["get", "http://127.0.0.1:9/a.jpg", "--cache-max-entry", "lots"])
        #expect(bad.status == ExitStatus.usage.rawValue)
        #expect(bad.stderr.hasPrefix("Error: --cache-max-entry: \"lots\" is not a size (use e.g. 500M, 2G)\n"), "as --cache-size's")
    }

    // MARK: -R and the origin

    /// Each file carries its origin (without credentials or fragment) and Content-Type as extended
    /// attributes; `-R` gives it the server's Last-Modified, for a body written through the output
    /// draft and for one over the largest entry alike.
    @Test(arguments: [false, true])
    func filesCarryTheirOriginAndWithRTheServersTime(overLargestEntry: Bool) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let modified = Date(timeIntervalSince1970: 1_600_000_000)
        let body = overLargestEntry ? Self.large(3 << 20) : Self.jpeg
        try await stopping(server) {
            server.publish(.data(body, contentType: "image/jpeg", lastModified: modified), at: "/photos/a.jpg")
            server.publish(.data(Data(), contentType: "text/plain"), at: "/moved/a.jpg", faults: [.redirect(to: "/photos/a.jpg")])
            let environment = ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path]
            var url = URLComponents(url: server.url(for: "/moved/a.jpg"), resolvingAgainstBaseURL: false)!
            url.user = "me"
            url.password = "secret"
            url.fragment = "top"
            let limit = overLargestEntry ? ["--cache-max-entry", "1M"] : []
            let timed = try await ImgviewProcess.run(
                ["get", url.string!, "-o", "timed.jpg", "-R", "--quiet", "--referer", "https://example.org/"] + limit,
                environment: environment, directory: folder)
            #expect(timed.status == 0, "\(timed.stderr)")
            let path = folder.appendingPathComponent("timed.jpg").path
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == body)
            #expect(try Self.modificationTime(of: path) == 1_600_000_000)
            #expect(Self.extendedAttribute("user.xdg.origin.url", of: path) == server.url(for: "/photos/a.jpg").absoluteString)
            #expect(Self.extendedAttribute("user.mime_type", of: path) == "image/jpeg")
            #expect(Self.extendedAttribute("user.xdg.referrer.url", of: path) == "https://example.org/")

            let plain = try await ImgviewProcess.run(
                ["get", server.url(for: "/photos/a.jpg").absoluteString, "-o", "plain.jpg", "--quiet"] + limit,
                environment: environment, directory: folder)
            #expect(plain.status == 0, "\(plain.stderr)")
            let plainPath = folder.appendingPathComponent("plain.jpg").path
            #expect(try Self.modificationTime(of: plainPath) > 1_600_000_000 + 86_400, "without -R, the time of writing")
            #expect(Self.extendedAttribute("user.xdg.origin.url", of: plainPath) == server.url(for: "/photos/a.jpg").absoluteString)
            #expect(Self.extendedAttribute("user.xdg.referrer.url", of: plainPath) == nil)
        }
    }
}
