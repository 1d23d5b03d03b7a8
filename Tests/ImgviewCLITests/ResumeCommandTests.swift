import Crypto
import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `imgview get` continuing a download that was cut short, against the loopback server's ranges.
@Suite("imgview get: resume")
struct ResumeCommandTests {
    /// A JPEG followed by 6 MB of other bytes: long enough to be cut part way, still an image.
    static let body: Data = {
        var data = try! Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))
        var generator = SystemRandomNumberGenerator()
        data.append(contentsOf: (0..<(6 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return data
    }()
    static let path = "/big/photo.jpg"

    struct Setup {
        let server: LoopbackServer
        let folder: URL
        let cache: URL
        var environment: [String: String] { ["IMGVIEW_CACHE_DIR": cache.path] }
        var url: String { server.url(for: ResumeCommandTests.path).absoluteString }
        var output: URL { folder.appendingPathComponent("photo.jpg") }

        func get(_ arguments: [String] = []) async throws -> ImgviewProcess.Result {
            try await ImgviewProcess.run(["get", url, "--quiet"] + arguments, environment: environment, directory: folder)
        }

        /// The names in the cache's `tmp/`.
        func temporaryNames() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("v1/tmp").path)) ?? []).sorted()
        }

        /// The bytes kept of the partial download, 0 when there is none.
        func partialSize() -> Int {
            let name = "partial-" + SHA256.hash(data: Data(url.utf8)).hexString
            let path = cache.appendingPathComponent("v1/tmp/\(name)").path
            return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }

        /// Starts `get`, lets the body stop at `fraction` of its length, and stops the process
        /// there with `signal`; returns its exit status.
        func interrupt(at fraction: Double, with signal: Int32, resource: ServedResource) async throws -> Int32 {
            let gate = BodyGate()
            let held = Int(Double(ResumeCommandTests.body.count) * fraction)
            var fault = Fault.held(after: held, until: gate, chunkSize: 64 << 10, delayPerChunk: .zero)
            fault.honoursRanges = resource.etag != nil || resource.lastModified != nil
            server.publish(resource, at: ResumeCommandTests.path, faults: [fault, .none])
            let (process, stdout, stderr) = try ImgviewProcess.start(
                ["get", url, "--quiet"], environment: environment, directory: folder)
            async let out = readToEnd(stdout)
            async let err = readToEnd(stderr)
            // Every whole block up to the hold is on disk once the server sent them.
            try await eventually { (server.requests(for: ResumeCommandTests.path).first?.bodyBytesSent ?? 0) >= held }
            try await eventually { !fault.honoursRanges || partialSize() >= held - (1 << 20) - (64 << 10) }
            kill(process.processIdentifier, signal)
            try await offPool { process.waitUntilExit() }
            gate.open()
            _ = await (out, err)
            return process.terminationStatus
        }
    }

    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) {
            try await body(Setup(server: server, folder: folder, cache: folder.appendingPathComponent("cache")))
        }
    }

    static func resource(_ data: Data = body) -> ServedResource {
        .data(data, contentType: "image/jpeg")
    }

    @Test(arguments: [SIGKILL, SIGINT])
    func aTransferStoppedPartWayContinuesWithOneRangedRequest(signal: Int32) async throws {
        try await withSetup { setup in
            let status = try await setup.interrupt(at: 0.6, with: signal, resource: Self.resource())
            #expect(status == (signal == SIGKILL ? 137 : 130) || status == signal, "exit \(status)")
            #expect(!FileManager.default.fileExists(atPath: setup.output.path), "no output of a cut transfer")
            let kept = setup.partialSize()
            #expect(kept >= Int(Double(Self.body.count) * 0.6) - (1 << 20) - (64 << 10), "kept \(kept)")
            #expect(kept <= Int(Double(Self.body.count) * 0.6))

            let result = try await setup.get(["--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Data(contentsOf: setup.output) == Self.body)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(report["status"] as? String == "resumed")
            #expect(report["http_status"] as? Int == 206)
            #expect(report["resumed_from"] as? Int == kept)
            #expect(report["bytes"] as? Int == Self.body.count)
            #expect(report["sha256"] as? String == SHA256.hash(data: Self.body).hexString)
            let requests = setup.server.requests(for: Self.path)
            #expect(requests.count == 2)
            let ranged = try #require(requests.last)
            #expect(ranged.headers["range"] == "bytes=\(kept)-")
            #expect(ranged.headers["if-range"] == Self.resource().etag)
            #expect(ranged.headers["accept-encoding"] == "identity")
            #expect(ranged.status == 206)
            #expect(ranged.bodyBytesSent == Self.body.count - kept)
            #expect(setup.temporaryNames().isEmpty, "the partial goes once whole: \(setup.temporaryNames())")
            // Stored whole, under the body's own SHA-256.
            let entry = try #require(try DiskCache(directory: setup.cache).entry(for: URL(string: setup.url)!))
            #expect(entry.sha256 == SHA256.hash(data: Self.body).hexString)
            #expect(entry.byteCount == Int64(Self.body.count))
        }
    }

    @Test func aChangedBodyIsFetchedWhole() async throws {
        try await withSetup { setup in
            _ = try await setup.interrupt(at: 0.5, with: SIGKILL, resource: Self.resource())
            #expect(setup.partialSize() > 0)
            var changed = Self.body
            changed[changed.count - 1] ^= 0xFF
            setup.server.publish(Self.resource(changed), at: Self.path)
            let result = try await setup.get()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Data(contentsOf: setup.output) == changed)
            let last = try #require(setup.server.requests(for: Self.path).last)
            #expect(last.headers["range"] != nil)
            #expect(last.status == 200, "If-Range named the old version: the server sent the new one whole")
            #expect(setup.temporaryNames().isEmpty)
        }
    }

    /// A server that ignores If-Range splices a new version onto the old bytes; the 206's ETag gives it away.
    @Test func aSplicingServerIsCaughtByItsETag() async throws {
        try await withSetup { setup in
            _ = try await setup.interrupt(at: 0.5, with: SIGKILL, resource: Self.resource())
            var changed = Self.body
            changed[changed.count - 1] ^= 0xFF
            var splicing = Fault()
            splicing.ignoresIfRange = true
            setup.server.publish(Self.resource(changed), at: Self.path, faults: [splicing, .none])
            let result = try await setup.get()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Data(contentsOf: setup.output) == changed)
            let requests = setup.server.requests(for: Self.path).dropFirst()
            #expect(requests.map(\.status) == [206, 200])
            #expect(requests.last?.headers["range"] == nil)
        }
    }

    @Test func aServerWithoutRangesStartsOver() async throws {
        try await withSetup { setup in
            var resource = Self.resource()
            resource.etag = nil
            _ = try await setup.interrupt(at: 0.5, with: SIGINT, resource: resource)
            #expect(setup.temporaryNames().isEmpty, "bytes no server would continue are not kept: \(setup.temporaryNames())")
            setup.server.publish(resource, at: Self.path, faults: [.noRanges])
            let result = try await setup.get()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Data(contentsOf: setup.output) == Self.body)
            #expect(setup.server.requests(for: Self.path).last?.headers["range"] == nil)
        }
    }

    /// Every byte came but the process died before keeping them: the server's 416 says they are all.
    @Test func keptBytesThatAreTheWholeBodyNeedNoneMore() async throws {
        try await withSetup { setup in
            _ = try await setup.interrupt(at: 0.5, with: SIGKILL, resource: Self.resource())
            let name = "partial-" + SHA256.hash(data: Data(setup.url.utf8)).hexString
            try Self.body.write(to: setup.cache.appendingPathComponent("v1/tmp/\(name)"))
            let result = try await setup.get()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Data(contentsOf: setup.output) == Self.body)
            let last = try #require(setup.server.requests(for: Self.path).last)
            #expect(last.headers["range"] == "bytes=\(Self.body.count)-")
            #expect(last.status == 416)
            #expect(setup.temporaryNames().isEmpty)
        }
    }

    /// `prune` removes partials nobody touched for a week, and leaves younger ones.
    @Test func pruneRemovesOldPartials() async throws {
        try await withSetup { setup in
            _ = try await setup.interrupt(at: 0.5, with: SIGKILL, resource: Self.resource())
            #expect(setup.temporaryNames().count == 2)
            let prune = try await ImgviewProcess.run(["cache", "prune", "--older-than", "1d"], environment: setup.environment)
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(setup.temporaryNames().count == 2)
            let old = Date().addingTimeInterval(-8 * 86_400)
            for name in setup.temporaryNames() {
                try FileManager.default.setAttributes(
                    [.modificationDate: old], ofItemAtPath: setup.cache.appendingPathComponent("v1/tmp/\(name)").path)
            }
            _ = try await ImgviewProcess.run(["cache", "prune", "--older-than", "1d"], environment: setup.environment)
            #expect(setup.temporaryNames().isEmpty)
        }
    }
    /// `cache ls` shows a download cut short after the entries, as `partial N%`, and `--json` lists it under `partials`.
    @Test func cacheListShowsAPartialWithItsShare() async throws {
        try await withSetup { setup in
            _ = try await setup.interrupt(at: 0.6, with: SIGKILL, resource: Self.resource())
            let kept = setup.partialSize()
            let percent = kept * 100 / Self.body.count
            #expect(percent >= 40 && percent <= 60, "kept \(kept)")

            let plain = try await ImgviewProcess.run(["cache", "ls"], environment: setup.environment)
            #expect(plain.status == 0, "\(plain.stderr)")
            let fields = try #require(plain.stdout.split(separator: "\n").first).split(separator: "\t", omittingEmptySubsequences: false)
            #expect(fields.count == 10, "\(plain.stdout)")
            #expect(fields[1] == setup.url[...])
            #expect(fields[2] == String(kept)[...])
            #expect(fields[7] == "partial \(percent)%"[...], "\(plain.stdout)")

            let json = try await ImgviewProcess.run(["cache", "ls", "--json"], environment: setup.environment)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect((object["entries"] as? [Any])?.isEmpty == true)
            let partial = try #require((object["partials"] as? [[String: Any]])?.first)
            #expect(partial["url"] as? String == setup.url)
            #expect(partial["bytes"] as? Int == kept)
            #expect(partial["total_bytes"] as? Int == Self.body.count)
            #expect(partial["percent"] as? Int == percent)
            #expect(partial["etag"] as? String == Self.resource().etag)
            let stats = try await ImgviewProcess.run(["cache", "stats", "--json"], environment: setup.environment)
            let counted = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
            #expect(counted["partials"] as? Int == 1)
            #expect(counted["partial_bytes"] as? Int == kept)

            // Once whole, it is an entry and no longer a partial.
            #expect(try await setup.get().status == 0)
            let after = try await ImgviewProcess.run(["cache", "ls", "--json"], environment: setup.environment)
            let whole = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
            #expect((whole["entries"] as? [Any])?.count == 1)
            #expect((whole["partials"] as? [Any])?.isEmpty == true)
        }
    }
}
