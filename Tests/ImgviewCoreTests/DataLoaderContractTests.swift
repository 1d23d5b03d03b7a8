import Foundation
import ImgviewCurl
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The two HTTP loaders imgview can use; every contract test runs against both.
enum LoaderKind: String, CaseIterable, CustomTestStringConvertible {
    case curl
    case urlSession

    var testDescription: String { rawValue }

    func make(idleTimeout: TimeInterval = 5) -> any DataLoading {
        switch self {
        case .curl: CurlDataLoader(idleTimeout: idleTimeout)
        case .urlSession: URLSessionDataLoader(idleTimeout: idleTimeout)
        }
    }
}

/// A sink that keeps what it receives, and can fail on the first body chunk.
final class CollectingSink: TransferSink, @unchecked Sendable {
    struct Refused: Error, Equatable {}

    private let state = Locked<(heads: [ResponseHead], body: Data)>(([], Data()))
    private let refusesBody: Bool

    init(refusesBody: Bool = false) {
        self.refusesBody = refusesBody
    }

    var heads: [ResponseHead] { state.withLock { $0.heads } }
    var body: Data { state.withLock { $0.body } }

    func receive(_ head: ResponseHead) throws {
        state.withLock { $0.heads.append(head) }
    }

    func receive(_ chunk: Data) throws {
        if refusesBody { throw Refused() }
        state.withLock { $0.body.append(chunk) }
    }
}

/// What the pipeline relies on from a loader, checked against the loopback server for each loader:
/// the final head once, the body whole, the errors the pipeline's retry rules know, and prompt stops.
@Suite("Data loaders over loopback")
struct DataLoaderContractTests {
    @Test(arguments: LoaderKind.allCases)
    func aBodyArrivesWholeWithItsHead(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            let image = fakePNG(size: 300_000)
            server.publish(.data(image, contentType: "image/png", cacheControl: "max-age=60"), at: "/a.png")
            let sink = CollectingSink()
            let head = try await kind.make().load(URLRequest(url: server.url(for: "/a.png")), into: sink)
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "image/png")
            #expect(head.header("cache-control") == "max-age=60")
            #expect(head.expectedLength == 300_000)
            #expect(head.url == server.url(for: "/a.png"))
            #expect(sink.heads == [head])
            #expect(sink.body == image)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func requestHeadersAreSentAndA304HasNoBody(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 5000), contentType: "image/png"), at: "/a.png")
            let loader = kind.make()
            let first = try await loader.load(URLRequest(url: server.url(for: "/a.png")), into: CollectingSink())
            let etag = try #require(first.header("etag"))
            var request = URLRequest(url: server.url(for: "/a.png"))
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
            request.setValue("imgview-test", forHTTPHeaderField: "User-Agent")
            let sink = CollectingSink()
            let head = try await loader.load(request, into: sink)
            #expect(head.status == 304)
            #expect(sink.body.isEmpty)
            #expect(sink.heads.map(\.status) == [304])
            #expect(server.requests(for: "/a.png").last?.header("if-none-match") == etag)
            #expect(server.requests(for: "/a.png").last?.header("user-agent") == "imgview-test")
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func redirectsAreFollowedAndOnlyTheFinalHeadArrives(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            let image = fakePNG(size: 2000)
            server.publish(.data(image, contentType: "image/png"), at: "/final.png")
            server.publish(.data(Data(), contentType: "text/plain"), at: "/moved.png", faults: [.redirect(to: "/final.png", status: 301)])
            let sink = CollectingSink()
            let head = try await kind.make().load(URLRequest(url: server.url(for: "/moved.png")), into: sink)
            #expect(head.status == 200)
            #expect(head.url == server.url(for: "/final.png"))
            #expect(sink.heads.count == 1)
            #expect(sink.body == image)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func gzipBodiesArriveDecoded(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            let image = fakePNG(size: 40_000)
            server.publish(.data(image, contentType: "image/png"), at: "/a.png", faults: [.gzipped])
            let sink = CollectingSink()
            let head = try await kind.make().load(URLRequest(url: server.url(for: "/a.png")), into: sink)
            #expect(head.header("content-encoding") == "gzip")
            #expect(head.uncompressedLength == nil)
            #expect(sink.body == image)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func errorStatusesAreHeadsNotErrors(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(
                .data(fakePNG(size: 100), contentType: "image/png"), at: "/a.png", faults: [.status(503, headers: ["Retry-After": "7"])])
            let head = try await kind.make().load(URLRequest(url: server.url(for: "/a.png")), into: CollectingSink())
            #expect(head.status == 503)
            #expect(head.header("retry-after") == "7")
            let missing = try await kind.make().load(URLRequest(url: server.url(for: "/nothing.png")), into: CollectingSink())
            #expect(missing.status == 404)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aRefusedConnectionIsCannotConnectToHost(kind: LoaderKind) async throws {
        // Port 1 on loopback, as the CLI's refused-connection test uses: nothing listens there.
        let error = await #expect(throws: URLError.self) {
            try await kind.make().load(URLRequest(url: URL(string: "http://127.0.0.1:1/a.png")!), into: CollectingSink())
        }
        #expect(error?.code == .cannotConnectToHost)
    }

    @Test(arguments: LoaderKind.allCases)
    func aBodyCutShortIsAnError(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 100_000), contentType: "image/png"), at: "/a.png", faults: [.truncated(after: 30_000)])
            let sink = CollectingSink()
            await #expect(throws: URLError.self) {
                try await kind.make().load(URLRequest(url: server.url(for: "/a.png")), into: sink)
            }
            #expect(sink.body.count <= 30_000)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aServerThatDoesNotAnswerTimesOut(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 100), contentType: "image/png"), at: "/a.png", faults: [.delay(.seconds(3))])
            let started = ContinuousClock.now
            let error = await #expect(throws: URLError.self) {
                try await kind.make(idleTimeout: 0.5).load(URLRequest(url: server.url(for: "/a.png")), into: CollectingSink())
            }
            #expect(error?.code == .timedOut)
            #expect(ContinuousClock.now - started < .seconds(2.5))
        }
    }

    /// The head arrives with the headers, before any body, so a body that then breaks off is known
    /// to be one cut short (ImageFetcher says "transfer cut short after 0 of 10000 bytes").
    @Test(arguments: LoaderKind.allCases)
    func theHeadArrivesEvenWhenNoBodyFollows(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 10_000), contentType: "image/png"), at: "/a.png", faults: [.truncated(after: 0)])
            let sink = CollectingSink()
            await #expect(throws: URLError.self) {
                try await kind.make().load(URLRequest(url: server.url(for: "/a.png")), into: sink)
            }
            #expect(sink.heads.map(\.status) == [200])
            #expect(sink.heads.first?.expectedLength == 10_000)
            #expect(sink.body.isEmpty)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func cancellingStopsTheTransferAndClosesTheConnection(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(
                .data(fakePNG(size: 500_000), contentType: "image/png"), at: "/a.png",
                faults: [.slowBody(chunkSize: 1000, delayPerChunk: .milliseconds(20))])
            let loader = kind.make()
            let sink = CollectingSink()
            let task = Task { try await loader.load(URLRequest(url: server.url(for: "/a.png")), into: sink) }
            try await eventually { server.requests(for: "/a.png").first?.bodyBytesSent ?? 0 > 0 }
            let cancelled = ContinuousClock.now
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(ContinuousClock.now - cancelled < .seconds(1))
            try await eventually { server.requests(for: "/a.png").first?.outcome == .aborted }
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aSinkThatThrowsStopsTheTransferWithItsError(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(
                .data(fakePNG(size: 500_000), contentType: "image/png"), at: "/a.png",
                faults: [.slowBody(chunkSize: 1000, delayPerChunk: .milliseconds(20))])
            await #expect(throws: CollectingSink.Refused.self) {
                try await kind.make().load(URLRequest(url: server.url(for: "/a.png")), into: CollectingSink(refusesBody: true))
            }
            try await eventually { server.requests(for: "/a.png").first?.outcome == .aborted }
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func manyConcurrentTransfersEachGetTheirOwnBody(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            let images = (0..<12).map { fakePNG(size: 50_000 + $0 * 1000, seed: UInt8($0)) }
            for (index, image) in images.enumerated() {
                server.publish(.data(image, contentType: "image/png"), at: "/\(index).png")
            }
            let loader = kind.make()
            let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                for index in images.indices {
                    group.addTask {
                        let sink = CollectingSink()
                        _ = try await loader.load(URLRequest(url: server.url(for: "/\(index).png")), into: sink)
                        return (index, sink.body)
                    }
                }
                return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
            }
            for (index, image) in images.enumerated() { #expect(bodies[index] == image) }
        }
    }

    /// `--connect-timeout inf` means no idle limit, not a crash converting it to nanoseconds.
    @Test func curlTakesAnEndlessIdleTimeout() async throws {
        try await withLoopbackServer { server, _ in
            let image = fakePNG(size: 1000)
            server.publish(.data(image, contentType: "image/png"), at: "/a.png")
            let sink = CollectingSink()
            _ = try await CurlDataLoader(idleTimeout: .infinity).load(URLRequest(url: server.url(for: "/a.png")), into: sink)
            #expect(sink.body == image)
        }
    }

    @Test func curlRefusesSchemesOtherThanHTTP() async throws {
        let error = await #expect(throws: URLError.self) {
            try await CurlDataLoader().load(URLRequest(url: URL(string: "ftp://127.0.0.1/a.png")!), into: CollectingSink())
        }
        #expect(error?.code == .unsupportedURL)
    }
}
