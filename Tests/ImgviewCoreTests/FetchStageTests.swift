import Foundation
import HTTPTypes
import ImgviewCurl
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// The pipeline against a real HTTP server on loopback.
@Suite("Fetching over loopback")
struct FetchStageTests {
    let date = ManualDate()

    /// - Parameter loader: libcurl, as `imgview` fetches, unless a test runs over both loaders.
    func makePipeline(
        cache folder: URL?, sizeLimit: Int64 = 1 << 30, retries: Int = 0, offline: Bool = false, loader: LoaderKind = .curl
    ) throws -> ImagePipeline {
        let disk = try folder.map { try DiskCache(directory: $0, sizeLimit: sizeLimit, now: { [date] in date.now }) }
        return ImagePipeline.fetching(
            .init(
                dataLoader: loader.make(idleTimeout: 5), diskCache: disk,
                retry: RetryPolicy(maxRetries: retries, baseDelay: .milliseconds(10)), isOffline: offline,
                now: { [date] in date.now }))
    }

    func withServer(_ body: (LoopbackServer, URL) async throws -> Void) async throws {
        try await withLoopbackServer(body)
    }

    @Test(arguments: LoaderKind.allCases)
    func concurrentRequestsShareOneTransfer(loader: LoaderKind) async throws {
        try await withServer { server, folder in
            let image = fakePNG(size: 50_000)
            server.publish(.data(image, contentType: "image/png"), at: "/a.png", faults: [.delay(.milliseconds(300))])
            let pipeline = try makePipeline(cache: folder, loader: loader)
            async let first = pipeline.bytes(for: ImageRequest(url: server.url(for: "/a.png")))
            async let second = pipeline.bytes(for: ImageRequest(url: server.url(for: "/a.png")))
            let (a, b) = try await (first, second)
            #expect(try a.data() == image)
            #expect(try b.data() == image)
            #expect(server.requests(for: "/a.png").count == 1)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func cancellingOneWaiterLeavesTheOtherAlone(loader: LoaderKind) async throws {
        try await withServer { server, folder in
            let image = fakePNG(size: 20_000)
            server.publish(
                .data(image, contentType: "image/png"), at: "/a.png", faults: [.slowBody(chunkSize: 2000, delayPerChunk: .milliseconds(30))]
            )
            let pipeline = try makePipeline(cache: folder, loader: loader)
            let url = server.url(for: "/a.png")
            let leaving = Task { try await pipeline.bytes(for: ImageRequest(url: url)) }
            let staying = Task { try await pipeline.bytes(for: ImageRequest(url: url)) }
            try await eventually { server.requests(for: "/a.png").first?.bodyBytesSent ?? 0 > 0 }
            leaving.cancel()
            await #expect(throws: CancellationError.self) { try await leaving.value }
            #expect(try await staying.value.data() == image)
            #expect(server.requests(for: "/a.png").count == 1)
            #expect(server.requests(for: "/a.png").first?.outcome == .completed)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func cancellingEveryWaiterClosesTheConnection(loader: LoaderKind) async throws {
        try await withServer { server, folder in
            server.publish(
                .data(fakePNG(size: 200_000), contentType: "image/png"), at: "/a.png",
                faults: [.slowBody(chunkSize: 1000, delayPerChunk: .milliseconds(20))])
            let pipeline = try makePipeline(cache: folder, loader: loader)
            let url = server.url(for: "/a.png")
            let one = Task { try await pipeline.bytes(for: ImageRequest(url: url)) }
            let two = Task { try await pipeline.bytes(for: ImageRequest(url: url)) }
            try await eventually { server.requests(for: "/a.png").first?.bodyBytesSent ?? 0 > 0 }
            one.cancel()
            two.cancel()
            _ = await (one.result, two.result)
            try await eventually { server.requests(for: "/a.png").first?.outcome == .aborted }
            #expect(pipeline.activeFetches == 0)
            // Nothing partial was cached: the next request goes to the server again.
            server.setFaults([], for: "/a.png")
            _ = try await pipeline.bytes(for: ImageRequest(url: url))
            #expect(server.requests(for: "/a.png").count == 2)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aCachedImageMakesNoRequestThenRevalidatesWith304(loader: LoaderKind) async throws {
        try await withServer { server, folder in
            let image = fakePNG(size: 30_000)
            server.publish(
                .data(
                    image, contentType: "image/png", lastModified: Date(timeIntervalSince1970: 1_700_000_000), cacheControl: "max-age=60"),
                at: "/a.png")
            let url = server.url(for: "/a.png")
            let first = try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: url))
            #expect(first.source == .network)
            #expect(first.isCached)

            // A new process (new pipeline, empty memory) reads from disk: no request.
            let second = try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: url))
            #expect(second.source == .disk)
            #expect(try second.data() == image)
            #expect(server.requests(for: "/a.png").count == 1)

            // After max-age, one conditional request, answered 304 without a body.
            date.advance(by: 61)
            let third = try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: url))
            #expect(third.source == .revalidated)
            #expect(try third.data() == image)
            let requests = server.requests(for: "/a.png")
            #expect(requests.count == 2)
            #expect(requests[1].header("If-None-Match") == first.entry.etag)
            #expect(requests[1].status == 304)
            #expect(requests[1].bodyBytesSent == 0)
            // The 304 renewed freshness: no request now.
            _ = try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: url))
            #expect(server.requests(for: "/a.png").count == 2)
        }
    }

    @Test func aChangedImageIsFetchedAfterExpiry() async throws {
        try await withServer { server, folder in
            server.publish(.data(fakePNG(size: 1000, seed: 1), contentType: "image/png"), at: "/a.png")
            let url = server.url(for: "/a.png")
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            let changed = fakePNG(size: 1200, seed: 9)
            server.publish(.data(changed, contentType: "image/png"), at: "/a.png")
            // Default freshness is 30 minutes.
            date.advance(by: 29 * 60)
            #expect(try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url)).source == .disk)
            date.advance(by: 2 * 60)
            let renewed = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            #expect(renewed.source == .network)
            #expect(try renewed.data() == changed)
        }
    }

    @Test func aCorruptedBlobIsDetectedAndFetchedAgain() async throws {
        try await withServer { server, folder in
            let image = fakePNG(size: 5000)
            server.publish(.data(image, contentType: "image/png"), at: "/a.png")
            let url = server.url(for: "/a.png")
            let first = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            let disk = try DiskCache(directory: folder)
            let blob = disk.blobURL(for: first.entry)
            var damaged = try Data(contentsOf: blob)
            damaged[100] ^= 0xFF
            try damaged.write(to: blob)
            let again = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            #expect(again.source == .network)
            #expect(try again.data() == image)
            #expect(try Data(contentsOf: disk.blobURL(for: again.entry)) == image)
        }
    }

    @Test func reloadBypassesTheCaches() async throws {
        try await withServer { server, folder in
            server.publish(.data(fakePNG(size: 1000), contentType: "image/png"), at: "/a.png")
            let url = server.url(for: "/a.png")
            let pipeline = try makePipeline(cache: folder)
            _ = try await pipeline.bytes(for: ImageRequest(url: url))
            #expect(try await pipeline.bytes(for: ImageRequest(url: url)).source == .memory)
            #expect(try await pipeline.bytes(for: ImageRequest(url: url, cachePolicy: .reload)).source == .network)
            #expect(server.requests(for: "/a.png").count == 2)
            #expect(server.requests(for: "/a.png")[1].header("If-None-Match") == nil)
        }
    }

    @Test func offlineUsesStaleEntriesAndNeverTheNetwork() async throws {
        try await withServer { server, folder in
            server.publish(.data(fakePNG(size: 1000), contentType: "image/png"), at: "/a.png")
            let url = server.url(for: "/a.png")
            _ = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            date.advance(by: 86_400)
            #expect(try await makePipeline(cache: folder, offline: true).bytes(for: ImageRequest(url: url)).source == .disk)
            await #expect(throws: ImagePipelineError.offlineMiss(server.url(for: "/b.png"))) {
                try await makePipeline(cache: folder, offline: true).bytes(for: ImageRequest(url: server.url(for: "/b.png")))
            }
            #expect(server.requests().count == 1)
        }
    }

    @Test(
        "Bad responses become typed errors, and nothing is cached",
        arguments: [
            ("404", Fault.status(404)),
            ("410", Fault.status(410)),
            ("500", Fault.status(500)),
            ("truncated", Fault.truncated(after: 3000)),
            ("not an image", Fault.body(Data("<html>nope</html>".utf8), contentType: "image/png")),
        ])
    func badResponses(label: String, fault: Fault) async throws {
        try await withServer { server, folder in
            server.publish(.data(fakePNG(size: 10_000), contentType: "image/png"), at: "/a.png", faults: [fault])
            let url = server.url(for: "/a.png")
            let pipeline = try makePipeline(cache: folder)
            let error = await #expect(throws: ImagePipelineError.self) { try await pipeline.bytes(for: ImageRequest(url: url)) }
            switch label {
            case "404": #expect(error == .notFound(url, status: 404))
            case "410": #expect(error == .notFound(url, status: 410))
            case "500": #expect(error == .httpStatus(url, status: 500))
            case "truncated":
                // The server resets the connection after 3000 bytes; a reset may discard some of them unread.
                guard case .truncated(url, let received, 10_000)? = error else {
                    Issue.record("expected truncated, got \(String(describing: error))")
                    break
                }
                #expect(received <= 3000)
            default: #expect(error == .notAnImage(url, contentType: "image/png"))
            }
            #expect(try DiskCache(directory: folder).entries().isEmpty)
            // Only a body cut short keeps its bytes, as a partial download a later fetch continues.
            let temporary = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("v1/tmp").path)
            #expect(temporary.filter { !PartialDownload.isPartial($0) }.isEmpty)
            #expect(temporary.contains { PartialDownload.isPartial($0) } == (label == "truncated"), "\(temporary)")
        }
    }

    @Test func transientFailuresAreRetriedHonouringRetryAfter() async throws {
        try await withServer { server, folder in
            let image = fakePNG(size: 1000)
            server.publish(
                .data(image, contentType: "image/png"), at: "/a.png",
                faults: [.status(503, headers: ["Retry-After": "1"]), .status(500), .none])
            let started = ContinuousClock.now
            let response = try await makePipeline(cache: folder, retries: 3).bytes(for: ImageRequest(url: server.url(for: "/a.png")))
            #expect(try response.data() == image)
            #expect(server.requests(for: "/a.png").count == 3)
            #expect(ContinuousClock.now - started >= .seconds(1))
        }
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        try await withServer { server, folder in
            server.publish(.data(fakePNG(size: 100_000), contentType: "image/png"), at: "/a.png")
            let disk = try DiskCache(directory: folder)
            let pipeline = ImagePipeline.fetching(
                .init(dataLoader: CurlDataLoader(idleTimeout: 5), diskCache: disk, maxDownloadBytes: 50_000))
            await #expect(throws: ImagePipelineError.tooLarge(server.url(for: "/a.png"), limit: 50_000)) {
                try await pipeline.bytes(for: ImageRequest(url: server.url(for: "/a.png")))
            }
            #expect(disk.entries().isEmpty)
        }
    }

    @Test func gzipRedirectsAndWrongContentTypesStillDeliverTheImage() async throws {
        try await withServer { server, folder in
            let image = fakePNG(size: 40_000)
            server.publish(.data(image, contentType: "image/png"), at: "/gz.png", faults: [.gzipped])
            server.publish(.data(image, contentType: "image/png"), at: "/final.png")
            server.publish(.data(Data(), contentType: "text/plain"), at: "/moved.png", faults: [.redirect(to: "/final.png", status: 301)])
            server.publish(.data(image, contentType: "image/png"), at: "/mislabelled.png", faults: [.contentType("text/plain")])
            let pipeline = try makePipeline(cache: folder)
            for path in ["/gz.png", "/moved.png", "/mislabelled.png"] {
                let response = try await pipeline.bytes(for: ImageRequest(url: server.url(for: path)))
                #expect(try response.data() == image, "\(path)")
            }
            let moved = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: server.url(for: "/moved.png")))
            #expect(moved.entry.finalURL == server.url(for: "/final.png"))
        }
    }

    @Test func largeBodiesAreDeliveredAsFiles() async throws {
        try await withServer { server, folder in
            let image = fakePNG(size: 3_000_000)
            server.publish(.data(image, contentType: "image/png"), at: "/big.png")
            let disk = try DiskCache(directory: folder)
            let pipeline = ImagePipeline.fetching(
                .init(dataLoader: CurlDataLoader(idleTimeout: 5), diskCache: disk, memoryItemLimit: 1_000_000))
            let response = try await pipeline.bytes(for: ImageRequest(url: server.url(for: "/big.png")))
            guard case .file = response.body else {
                Issue.record("expected a file body")
                return
            }
            #expect(try response.data() == image)
            let again = try await ImagePipeline.fetching(
                .init(dataLoader: CurlDataLoader(idleTimeout: 5), diskCache: disk, memoryItemLimit: 1_000_000)
            )
            .bytes(for: ImageRequest(url: server.url(for: "/big.png")))
            #expect(again.source == .disk)
            #expect(try again.data() == image)
        }
    }

    @Test func localFilesAreReadDirectly() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.png")
        try fakePNG(size: 500).write(to: file)
        let pipeline = try makePipeline(cache: nil)
        let response = try await pipeline.bytes(for: ImageRequest(url: file))
        #expect(response.source == .file)
        #expect(response.entry.format == .png)
        await #expect(throws: ImagePipelineError.fileNotFound(folder.appendingPathComponent("b.png"))) {
            try await pipeline.bytes(for: ImageRequest(url: folder.appendingPathComponent("b.png")))
        }
    }
}

/// Failures told apart by kind: only what can succeed on a second try is tried again.
@Suite("Retries by kind of failure")
struct RetryByKindTests {
    /// Counts the requests a loader is asked for, to see how many attempts the pipeline made.
    final class CountingLoader: DataLoading {
        let inner: any DataLoading
        let count = Locked(0)

        init(_ inner: any DataLoading) {
            self.inner = inner
        }

        func load(_ request: HTTPRequest, adding headers: RequestHeaders, into sink: any TransferSink) async throws -> ResponseHead {
            count.withLock { $0 += 1 }
            return try await inner.load(request, adding: headers, into: sink)
        }
    }

    func attempts(_ url: URL, loader kind: LoaderKind, idleTimeout: TimeInterval = 5) async throws -> (Int, ImagePipelineError?) {
        let loader = CountingLoader(kind.make(idleTimeout: idleTimeout))
        let pipeline = ImagePipeline.fetching(
            .init(dataLoader: loader, retry: RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(10))))
        do {
            _ = try await pipeline.bytes(for: ImageRequest(url: url))
            return (loader.count.withLock { $0 }, nil)
        } catch let error as ImagePipelineError {
            return (loader.count.withLock { $0 }, error)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func permanentTransportFailuresAreNotRetried(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 100), contentType: "image/png"), at: "/a.png")
            server.publish(.data(Data(), contentType: "text/plain"), at: "/to-file.png", faults: [.redirect(to: "file:///etc/passwd")])
            let cases: [(URL, TransportError?)] = [
                (URL(string: "http://nonexistent.invalid/a.png")!, .hostNotFound("nonexistent.invalid")),
                (URL(string: "http://127.0.0.1:1/a.png")!, .connectionRefused),
                (URL(string: "https://127.0.0.1:\(server.port)/a.png")!, nil),
                (server.url(for: "/to-file.png"), .unsupportedScheme("file", redirected: true)),
            ]
            for (url, expected) in cases {
                let (count, error) = try await attempts(url, loader: kind)
                #expect(count == 1, "\(url)")
                guard case .transport(url, let failure)? = error else {
                    Issue.record("\(url): expected a transport error, got \(String(describing: error))")
                    continue
                }
                if let expected { #expect(failure == expected) }
                #expect(error?.exitStatus == .network)
            }
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func transientFailuresAreRetried(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 10_000), contentType: "image/png"), at: "/cut.png", faults: [.truncated(after: 3000)])
            server.publish(.data(fakePNG(size: 100), contentType: "image/png"), at: "/slow.png", faults: [.delay(.seconds(2))])
            let (cut, cutError) = try await attempts(server.url(for: "/cut.png"), loader: kind)
            #expect(cut == 3)
            #expect(cutError?.isTransient == true)
            let (slow, slowError) = try await attempts(server.url(for: "/slow.png"), loader: kind, idleTimeout: 0.3)
            #expect(slow == 3)
            guard case .transport(_, .timedOut)? = slowError else {
                Issue.record("expected a timeout, got \(String(describing: slowError))")
                return
            }
        }
    }

    @Test func kindsThatCanSucceedOnASecondTry() {
        let url = URL(string: "http://h/a.png")!
        let transient: [ImagePipelineError] = [
            .transport(url, .timedOut(seconds: 1, received: 0)), .transport(url, .connectionLost(received: 10)),
            .truncated(url, received: 1, expected: nil), .httpStatus(url, status: 503), .httpStatus(url, status: 429),
        ]
        let permanent: [ImagePipelineError] = [
            .transport(url, .connectionRefused), .transport(url, .hostNotFound("h")), .transport(url, .tls("wrong version")),
            .transport(url, .tooManyRedirects(limit: 10)), .transport(url, .unsupportedScheme("file", redirected: true)),
            .transport(url, .badResponse("x")), .storage(url, FileSystemError(operation: "write", path: "/c/v1/tmp/1.part", errno: ENOSPC)),
            .httpStatus(url, status: 403), .timedOut(url, after: "overall limit of 1 s"),
        ]
        for error in transient { #expect(error.isTransient, "\(error)") }
        for error in permanent { #expect(!error.isTransient, "\(error)") }
        let full = ImagePipelineError.storage(url, FileSystemError(operation: "write", path: "/c/v1/tmp/1.part", errno: ENOSPC))
        #expect(full.exitStatus == .storage)
        #expect(full.message == "http://h/a.png: cannot write the download: No space left on device (in /c/v1/tmp)")
    }
}

/// A body with no Content-Length (the connection's close ends it) is whole only if the image is.
@Suite("Close-delimited bodies")
struct CloseDelimitedBodyTests {
    static let jpeg = try! Data(contentsOf: repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))

    @Test(arguments: LoaderKind.allCases)
    func aWholeImageIsKeptAsFresh(kind: LoaderKind) async throws {
        let server = try RawResponseServer()
        defer { server.stop() }
        server.respondCloseDelimited(at: "/a.jpg", body: Self.jpeg)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = ImagePipeline.fetching(.init(dataLoader: kind.make(), diskCache: try DiskCache(directory: folder)))
        let response = try await pipeline.bytes(for: ImageRequest(url: server.url(for: "/a.jpg")))
        #expect(try response.data() == Self.jpeg)
        #expect(response.isCached)
        #expect(response.entry.isFresh(at: Date()))
    }

    @Test(arguments: LoaderKind.allCases)
    func aCutImageIsATruncatedTransferRetriedAndNeverCached(kind: LoaderKind) async throws {
        let server = try RawResponseServer()
        defer { server.stop() }
        server.respondCloseDelimited(at: "/a.jpg", body: Self.jpeg, sent: 30_000)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = try DiskCache(directory: folder)
        let pipeline = ImagePipeline.fetching(
            .init(
                dataLoader: kind.make(), diskCache: disk, retry: RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(10))))
        let url = server.url(for: "/a.jpg")
        await #expect(throws: ImagePipelineError.truncated(url, received: 30_000, expected: nil)) {
            try await pipeline.bytes(for: ImageRequest(url: url))
        }
        #expect(server.requestCount(for: "/a.jpg") == 3)
        #expect(disk.entries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("v1/tmp").path).isEmpty)
    }
}
