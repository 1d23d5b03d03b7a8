import Foundation
import ImgviewServer
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `imgview get` as a user runs it, against the loopback server.
@Suite("imgview get")
struct GetCommandTests {
    static let image: Data = {
        try! Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))
    }()

    struct Setup {
        let server: LoopbackServer
        let folder: URL
        let cache: String
        var environment: [String: String] { ["IMGVIEW_CACHE_DIR": cache] }

        func get(_ arguments: [String]) async throws -> ImgviewProcess.Result {
            try await ImgviewProcess.run(["get"] + arguments, environment: environment, directory: folder)
        }

        func files() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0 != "cache" }.sorted()
        }

        func cachedEntries() -> [CacheEntry] {
            (try? DiskCache(directory: URL(fileURLWithPath: cache)).entries()) ?? []
        }
    }

    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        let setup = Setup(server: server, folder: folder, cache: folder.appendingPathComponent("cache").path)
        server.publish(.data(Self.image, contentType: "image/jpeg"), at: "/photos/hopper.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) { try await body(setup) }
    }

    @Test func downloadsIntoTheCurrentFolderLikeCurlO() async throws {
        try await withSetup { setup in
            let url = setup.server.url(for: "/photos/hopper.jpg").absoluteString
            let result = try await setup.get([url])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == setup.folder.appendingPathComponent("hopper.jpg").path + "\n")
            #expect(result.stderr.isEmpty)  // no progress bar without a terminal
            #expect(try Data(contentsOf: setup.folder.appendingPathComponent("hopper.jpg")) == Self.image)

            // A second get is served by the cache: no request reaches the server.
            let again = try await setup.get([url, "-o", "copy.jpg"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try Data(contentsOf: setup.folder.appendingPathComponent("copy.jpg")) == Self.image)
            #expect(setup.server.requests(for: "/photos/hopper.jpg").count == 1)
        }
    }

    /// libcurl fetches unless IMGVIEW_HTTP picks URLSession; anything else is a usage error before any
    /// request, and so is URLSession in a build without it (the default one).
    @Test func theHTTPClientCanBeChosenAndAWrongOneIsRefused() async throws {
        try await withSetup { setup in
            let url = setup.server.url(for: "/photos/hopper.jpg").absoluteString
            let viaURLSession = try await ImgviewProcess.run(
                ["get", url, "-o", "session.jpg"], environment: setup.environment.merging(["IMGVIEW_HTTP": "urlsession"]) { $1 },
                directory: setup.folder)
            #if URLSession
                #expect(viaURLSession.status == 0, "\(viaURLSession.stderr)")
                #expect(try Data(contentsOf: setup.folder.appendingPathComponent("session.jpg")) == Self.image)
                let saved = ["session.jpg"]
                let requests = 1
            #else
                #expect(viaURLSession.status == 2)
                #expect(
                    viaURLSession.stderr
                        == "imgview: IMGVIEW_HTTP=urlsession: this imgview was built without URLSession (build it with `swift build --traits URLSession`); unset IMGVIEW_HTTP to use libcurl\n"
                )
                let saved: [String] = []
                let requests = 0
            #endif

            let wrong = try await ImgviewProcess.run(
                ["get", url, "-o", "wrong.jpg", "--force"], environment: setup.environment.merging(["IMGVIEW_HTTP": "wget"]) { $1 },
                directory: setup.folder)
            #expect(wrong.status == 2)
            #expect(wrong.stderr == "imgview: IMGVIEW_HTTP must be curl or urlsession, not wget\n")
            #expect(setup.server.requests(for: "/photos/hopper.jpg").count == requests)
            #expect(setup.files() == saved)
        }
    }

    /// Every output is a file of its own: not the cache's blob, not another output, so editing one
    /// changes nothing else, and damage in the cache never reaches a file already saved.
    @Test func outputsAreFilesOfTheirOwn() async throws {
        try await withSetup { setup in
            let url = setup.server.url(for: "/photos/hopper.jpg").absoluteString
            #expect(try await setup.get([url]).status == 0)
            #expect(try await setup.get([url, "-o", "copy.jpg"]).status == 0)
            let first = setup.folder.appendingPathComponent("hopper.jpg")
            let second = setup.folder.appendingPathComponent("copy.jpg")
            let entry = try #require(setup.cachedEntries().first)
            let blob = try DiskCache(directory: URL(fileURLWithPath: setup.cache)).blobURL(for: entry)
            let inodes = try [first, second, blob].map {
                try FileManager.default.attributesOfItem(atPath: $0.path)[.systemFileNumber] as? Int
            }
            #expect(Set(inodes).count == 3, "\(inodes)")

            // The blob is damaged in place: the outputs keep their bytes, and the next get fetches again.
            let handle = try FileHandle(forWritingTo: blob)
            try handle.write(contentsOf: Data(repeating: 0, count: 100))
            try handle.close()
            #expect(try Data(contentsOf: first) == Self.image)
            #expect(try Data(contentsOf: second) == Self.image)
            #expect(try await setup.get([url, "-o", "third.jpg"]).status == 0)
            #expect(try Data(contentsOf: setup.folder.appendingPathComponent("third.jpg")) == Self.image)
            #expect(setup.server.requests(for: "/photos/hopper.jpg").count == 2)
        }
    }

    /// `-o -` writes the bytes to standard output, and nothing else there.
    @Test func dashOWritesToStandardOutput() async throws {
        try await withSetup { setup in
            let url = setup.server.url(for: "/photos/hopper.jpg").absoluteString
            let result = try await setup.get([url, "-o", "-"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutData == Self.image)
            #expect(setup.files().isEmpty)
        }
    }

    /// Two URLs ending in the same name both get saved, as `d` saves: `hopper.jpg`, `hopper-1.jpg`;
    /// the same command again finds both up to date, in the same order.
    @Test func collidingNamesAreNumberedAndAGainRunIsUpToDate() async throws {
        try await withSetup { setup in
            let other = try Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/09_cups_progressive.jpg"))
            setup.server.publish(.data(other, contentType: "image/jpeg"), at: "/elsewhere/hopper.jpg")
            let urls = [
                setup.server.url(for: "/photos/hopper.jpg").absoluteString, setup.server.url(for: "/elsewhere/hopper.jpg").absoluteString,
            ]
            for run in 0..<2 {
                let result = try await setup.get(urls + ["--jobs", "2"])
                #expect(result.status == 0, "run \(run): \(result.stderr)")
                let printed = Set(result.stdout.split(separator: "\n").map(String.init))
                #expect(printed == Set(["hopper.jpg", "hopper-1.jpg"].map { setup.folder.appendingPathComponent($0).path }))
                #expect(setup.files() == ["hopper-1.jpg", "hopper.jpg"])
                #expect(try Data(contentsOf: setup.folder.appendingPathComponent("hopper.jpg")) == Self.image)
                #expect(try Data(contentsOf: setup.folder.appendingPathComponent("hopper-1.jpg")) == other)
            }
        }
    }

    /// A device node is never replaced, even with --force; the refusal comes before any download.
    @Test(.enabled(if: getuid() == 0)) func aDeviceNodeIsNeverReplaced() async throws {
        try await withSetup { setup in
            let node = setup.folder.appendingPathComponent("node")
            #expect(mknod(node.path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0)
            let url = setup.server.url(for: "/photos/hopper.jpg").absoluteString
            let result = try await setup.get([url, "-o", node.path, "--force"])
            #expect(result.status == ImgviewSupport.ExitStatus.output.rawValue)
            #expect(result.errorLine == "imgview: \(node.path): not a regular file; not replaced")
            var status = stat()
            #expect(lstat(node.path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
            #expect(setup.server.requests().isEmpty)
        }
    }

    @Test func downloadsTheWholeCatalogIntoAFolder() async throws {
        try await withSetup { setup in
            let images = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images")
            let catalog = setup.server.serve(try ImageFolder(directory: images))
            let catalogFile = setup.folder.appendingPathComponent("catalog.json")
            try catalog.jsonData().write(to: catalogFile)
            let out = setup.folder.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let result = try await ImgviewProcess.run(
                ["--catalog", catalogFile.path, "get", "--all", "-O", out.path, "--jobs", "3"], environment: setup.environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == 6)
            let saved = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
            #expect(saved == (try FileManager.default.contentsOfDirectory(atPath: images.path).sorted()))
            for name in saved {
                #expect(try Data(contentsOf: out.appendingPathComponent(name)) == Data(contentsOf: images.appendingPathComponent(name)))
            }
        }
    }

    /// `-O DIR` writes only into DIR, whatever the URL's path says, and never through a link in it.
    @Test func outputNamesNeverLeaveTheFolder() async throws {
        try await withSetup { setup in
            let out = setup.folder.appendingPathComponent("out")
            let outside = setup.folder.appendingPathComponent("outside")
            for folder in [out, outside] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            // The server sees these paths percent-decoded; the names come from the URL as the client sent it.
            let cases: [(served: String, requested: String, saved: String)] = [
                ("/a/../../outside/evil.jpg", "/a/..%2F..%2Foutside%2Fevil.jpg", "evil.jpg"),
                ("/b/..", "/b/%2E%2E", "image.jpg"),
                ("/c/..\\..\\back.jpg", "/c/..%5C..%5Cback.jpg", "back.jpg"),
                ("/d/.hidden.jpg", "/d/.hidden.jpg", "hidden.jpg"),
                ("/e/\u{1B}]0;x\u{07}.jpg", "/e/%1B%5D0;x%07.jpg", "]0;x.jpg"),
            ]
            for (served, requested, saved) in cases {
                setup.server.publish(.data(Self.image, contentType: "image/jpeg"), at: served)
                let url = setup.server.baseURL.absoluteString.dropLast() + requested
                let result = try await setup.get([String(url), "-O", out.path])
                #expect(result.status == 0, "\(requested): \(result.stderr)")
                #expect(result.stdout == out.appendingPathComponent(saved).path + "\n", "\(requested)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == cases.map(\.saved).sorted())
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
            #expect(setup.files() == ["out", "outside"])

            // A link in DIR under the output's name is not followed, with or without --force.
            let victim = outside.appendingPathComponent("victim.jpg")
            try Data("mine".utf8).write(to: victim)
            try FileManager.default.createSymbolicLink(
                at: out.appendingPathComponent("hopper.jpg"), withDestinationURL: victim)
            let url = setup.server.url(for: "/photos/hopper.jpg").absoluteString
            let refused = try await setup.get([url, "-O", out.path])
            #expect(refused.status == ImgviewSupport.ExitStatus.output.rawValue)
            let forced = try await setup.get([url, "-O", out.path, "--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(try Data(contentsOf: victim) == Data("mine".utf8))
            let replaced = try FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("hopper.jpg").path)
            #expect(replaced[.type] as? FileAttributeType == .typeRegular)
        }
    }

    @Test func transientFailuresAreRetried() async throws {
        try await withSetup { setup in
            setup.server.setFaults([.status(503, headers: ["Retry-After": "0"]), .status(429), .none], for: "/photos/hopper.jpg")
            let result = try await setup.get([setup.server.url(for: "/photos/hopper.jpg").absoluteString])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(setup.server.requests(for: "/photos/hopper.jpg").map(\.status) == [503, 429, 200])
        }
    }

    @Test func someFailedExitsOne() async throws {
        try await withSetup { setup in
            let good = setup.server.url(for: "/photos/hopper.jpg").absoluteString
            let bad = setup.server.url(for: "/photos/missing.jpg").absoluteString
            let result = try await setup.get([good, bad])
            #expect(result.status == ImgviewSupport.ExitStatus.partialFailure.rawValue)
            #expect(setup.files() == ["hopper.jpg"])
            #expect(result.errorLine.contains("missing.jpg: HTTP 404"))
        }
    }

    @Test func usageErrors() async throws {
        let none = try await ImgviewProcess.run(["get"])
        #expect(none.status == ImgviewSupport.ExitStatus.usage.rawValue)
        #expect(none.stderr.hasPrefix("Error: name an image (or a URL), or use --all"))
        let both = try await ImgviewProcess.run(["get", "a", "b", "-o", "x.jpg"])
        #expect(both.status == ImgviewSupport.ExitStatus.usage.rawValue)
    }

    /// A local file is copied from where it is: through a link the user names, and once more
    /// over a copy it already made (up to date, nothing written).
    @Test func aLocalFileIsCopiedThroughALink() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("hopper.jpg")
        try Self.image.write(to: original)
        let link = folder.appendingPathComponent("link.jpg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: original)
        let copy = folder.appendingPathComponent("copy.jpg")
        let result = try await ImgviewProcess.run(["get", link.path, "-o", copy.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: copy) == Self.image)
        let again = try await ImgviewProcess.run(["get", link.path, "-o", copy.path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: copy) == Self.image)
    }
}
