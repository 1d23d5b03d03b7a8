import Foundation
import HTTPTypes
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewCompression
@testable import ImgviewCurl
@testable import ImgviewFetching
@testable import ImgviewSupport

#if URLSession
    @testable import ImgviewURLSession
#endif

/// The two HTTP loaders imgview can use; every contract test runs against both (URLSession's in
/// a build with the `URLSession` trait, as CI makes: `swift build --traits URLSession`).
enum LoaderKind: String, CaseIterable, CustomTestStringConvertible {
    case curl
    #if URLSession
        case urlSession
    #endif

    var testDescription: String { rawValue }

    func make(idleTimeout: TimeInterval = 5) -> any DataLoading {
        switch self {
        case .curl: CurlDataLoader(idleTimeout: idleTimeout)
        #if URLSession
            case .urlSession: URLSessionDataLoader(idleTimeout: idleTimeout)
        #endif
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
            let head = try await kind.make().load(.get(server.url(for: "/a.png")), into: sink)
            #expect(head.status == 200)
            #expect(head[.contentType] == "image/png")
            #expect(head[HTTPField.Name("cache-CONTROL")!] == "max-age=60")
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
            let first = try await loader.load(.get(server.url(for: "/a.png")), into: CollectingSink())
            let etag = try #require(first[.eTag])
            let sink = CollectingSink()
            let request = HTTPRequest.get(server.url(for: "/a.png"), fields: [.ifNoneMatch: etag, .userAgent: "imgview-test"])
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
            let head = try await kind.make().load(.get(server.url(for: "/moved.png")), into: sink)
            #expect(head.status == 200)
            #expect(head.url == server.url(for: "/final.png"))
            #expect(sink.heads.count == 1)
            #expect(sink.body == image)
        }
    }

    /// The user's `-H` fields go only to the origin (scheme, host and port) of the request they
    /// were given for: not on to another host (`localhost` for `127.0.0.1`, the same server) nor
    /// another port, but through a redirect that stays. The User-Agent goes everywhere, the
    /// Referer to another origin as its origin alone, and imgview's own fields (a resume's Range)
    /// follow every hop.
    @Test(arguments: LoaderKind.allCases)
    func theUsersHeadersStayAtTheirOrigin(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            try await withLoopbackServer { elsewhere, _ in
                let image = fakePNG(size: 2000)
                elsewhere.publish(.data(image, contentType: "image/png"), at: "/port.png")
                server.publish(.data(image, contentType: "image/png"), at: "/host.png")
                server.publish(.data(image, contentType: "image/png"), at: "/here.png")
                let byName = "http://localhost:\(server.port)/host.png"
                let redirects = [
                    ("/to-port.png", elsewhere.url(for: "/port.png").absoluteString, 302),
                    ("/to-host.png", byName, 301),
                    ("/to-here.png", "/here.png", 307),
                ]
                for (path, location, status) in redirects {
                    server.publish(.data(Data(), contentType: "text/plain"), at: path, faults: [.redirect(to: location, status: status)])
                }
                var headers = RequestHeaders()
                try headers.add("X-Token: t1")
                try headers.add("Authorization: Bearer secret")
                try headers.add("Cookie: a=1")
                try headers.setReferrer("http://127.0.0.1:\(server.port)/gallery/1.html")
                try headers.setUserAgent("tester/1")
                let loader = HeaderAddingLoader(kind.make(), headers: headers)
                for (path, _, _) in redirects {
                    let sink = CollectingSink()
                    let request = HTTPRequest.get(server.url(for: path), fields: [.userAgent: "imgview/0.1", .range: "bytes=0-"])
                    let head = try await loader.load(request, into: sink)
                    #expect(head.status == 206 || head.status == 200)
                    #expect(sink.body == image)
                    let first = try #require(server.requests(for: path).first)
                    #expect(first.header("x-token") == "t1")
                    #expect(first.header("authorization") == "Bearer secret")
                    #expect(first.header("cookie") == "a=1")
                }
                let elsewhereRequests = [
                    try #require(elsewhere.requests(for: "/port.png").first), try #require(server.requests(for: "/host.png").first),
                ]
                for request in elsewhereRequests {
                    #expect(request.header("x-token") == nil)
                    #expect(request.header("authorization") == nil)
                    #expect(request.header("cookie") == nil)
                    #expect(request.header("user-agent") == "tester/1")
                    #expect(request.header("referer") == "http://127.0.0.1:\(server.port)/")
                    #expect(request.header("range") == "bytes=0-")
                }
                let here = try #require(server.requests(for: "/here.png").first)
                #expect(here.header("x-token") == "t1")
                #expect(here.header("authorization") == "Bearer secret")
                #expect(here.header("cookie") == "a=1")
                #expect(here.header("referer") == "http://127.0.0.1:\(server.port)/gallery/1.html")
                #expect(here.header("range") == "bytes=0-")
            }
        }
    }

    /// libcurl's loader asks for gzip, deflate and brotli and decodes them itself, vouching for the
    /// decoded length once the coding ended; URLSession's asks for bodies as they are, since its
    /// decoder cannot tell a cut stream from a whole one.
    @Test(arguments: LoaderKind.allCases, Fault.Encoding.Coding.allCases)
    func compressedBodiesArriveDecodedAndWhole(kind: LoaderKind, coding: Fault.Encoding.Coding) async throws {
        try await withLoopbackServer { server, _ in
            let image = fakePNG(size: 40_000)
            server.publish(.data(image, contentType: "image/png"), at: "/a.png", faults: [.encoded(coding)])
            let sink = CollectingSink()
            let head = try await kind.make().load(.get(server.url(for: "/a.png")), into: sink)
            #expect(sink.body == image)
            #expect(head.uncompressedLength == Int64(image.count))
            let accepted = server.requests(for: "/a.png").first?.headers["accept-encoding"]
            switch kind {
            case .curl:
                #expect(accepted == "gzip, deflate, br")
                #expect(head[.contentEncoding] == coding.token)
                #expect(head.decodedLength == Int64(image.count))
            #if URLSession
                case .urlSession:
                    #expect(accepted == "identity")
                    #expect(head[.contentEncoding] == nil)
            #endif
            }
        }
    }

    /// A body compressed though the client did not ask: decoded by both; only libcurl's loader can
    /// vouch for its length.
    @Test(arguments: LoaderKind.allCases)
    func aBodyCompressedUnaskedArrivesDecoded(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            let image = fakePNG(size: 40_000)
            server.publish(.data(image, contentType: "image/png"), at: "/a.png", faults: [.encoded(.gzip, evenIfNotAccepted: true)])
            let sink = CollectingSink()
            let head = try await kind.make().load(.get(server.url(for: "/a.png")), into: sink)
            #expect(sink.body == image)
            #expect(head[.contentEncoding] == "gzip")
            #expect(head.uncompressedLength == (kind == .curl ? Int64(image.count) : nil))
        }
    }

    /// A compressed stream cut short with a Content-Length that matches what was sent: HTTP's
    /// framing sees a whole body. libcurl's loader refuses it; URLSession's delivers what decoded
    /// with no length vouched for, and the fetcher judges the image's own end (FetchStageTests).
    @Test(arguments: LoaderKind.allCases, Fault.Encoding.Coding.allCases)
    func aCompressedStreamCutShortIsNeverWhole(kind: LoaderKind, coding: Fault.Encoding.Coding) async throws {
        try await withLoopbackServer { server, _ in
            // Bytes that barely compress, so that the cut falls inside the stream.
            let image = noisyPNG(size: 100_000)
            server.publish(
                .data(image, contentType: "image/png"), at: "/a.png", faults: [.encoded(coding, evenIfNotAccepted: true, cutAfter: 20_000)])
            let sink = CollectingSink()
            switch kind {
            case .curl:
                let name = ContentDecoder.Coding(rawValue: coding.token)!.name
                await #expect(throws: TransportError.badResponse("the \(name) body stops before the end of its \(name) stream")) {
                    try await kind.make().load(.get(server.url(for: "/a.png")), into: sink)
                }
            #if URLSession
                case .urlSession:
                    let head = try? await kind.make().load(.get(server.url(for: "/a.png")), into: sink)
                    #expect(head?.uncompressedLength == nil)
                    #expect(sink.body.count < image.count)
            #endif
            }
        }
    }

    /// Content-Length read strictly, by both loaders: repeated values that differ, and one past
    /// what a length can be, are refused before the body (libcurl takes the last of two, and
    /// reads an overflowing one's body to the connection's end).
    @Test(arguments: LoaderKind.allCases)
    func contentLengthsThatCannotBeTrustedAreRefused(kind: LoaderKind) async throws {
        let server = try RawResponseServer()
        defer { server.stop() }
        let body = fakePNG(size: 3_000)
        func respond(_ path: String, lengths: [String]) {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n" + lengths.map { "Content-Length: \($0)\r\n" }.joined() + "\r\n"
            server.respond(at: path, with: Data(head.utf8) + body)
        }
        respond("/two.png", lengths: ["3000", "2999"])
        respond("/list.png", lengths: ["3000, 3001"])
        respond("/huge.png", lengths: ["100000000000000000000000000"])
        respond("/same.png", lengths: ["3000", "3000"])
        let loader = kind.make()
        let refusals = [
            "/two.png": "two different Content-Lengths, 3000 and 2999", "/list.png": "two different Content-Lengths, 3000 and 3001",
            "/huge.png": "a Content-Length of 100000000000000000000000000 bytes, more than any body can hold",
        ]
        for (path, reason) in refusals {
            await #expect(throws: TransportError.badResponse(reason), "\(path)") {
                try await loader.load(.get(server.url(for: path)), into: CollectingSink())
            }
        }
        let sink = CollectingSink()
        let head = try await loader.load(.get(server.url(for: "/same.png")), into: sink)
        #expect(head.expectedLength == 3000)
        #expect(sink.body == body)
    }

    /// An answer that is not HTTP, and a header line of a megabyte: each said for what it is.
    @Test(arguments: LoaderKind.allCases)
    func answersThatAreNotHTTPAreBadResponses(kind: LoaderKind) async throws {
        let server = try RawResponseServer()
        defer { server.stop() }
        server.respond(at: "/hello", with: Data("HELLO THERE\r\nContent-Length: 2\r\n\r\nhi".utf8))
        let long = "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\nhi"
        server.respond(at: "/long", with: Data(long.utf8))
        let loader = kind.make()
        for path in ["/hello", "/long"] {
            let error = await #expect(throws: TransportError.self) {
                try await loader.load(.get(server.url(for: path)), into: CollectingSink())
            }
            guard case .badResponse(let reason)? = error else {
                Issue.record("\(path): \(String(describing: error))\(error?.reason ?? "")")
                continue
            }
            #expect(
                reason == (path == "/hello" ? "the answer does not start with an HTTP status line" : "a header line longer than 100 kB"))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func errorStatusesAreHeadsNotErrors(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(
                .data(fakePNG(size: 100), contentType: "image/png"), at: "/a.png", faults: [.status(503, headers: ["Retry-After": "7"])])
            let head = try await kind.make().load(.get(server.url(for: "/a.png")), into: CollectingSink())
            #expect(head.status == 503)
            #expect(head[.retryAfter] == "7")
            let missing = try await kind.make().load(.get(server.url(for: "/nothing.png")), into: CollectingSink())
            #expect(missing.status == 404)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aRefusedConnectionIsConnectionRefused(kind: LoaderKind) async throws {
        // Port 1 on loopback, as the CLI's refused-connection test uses: nothing listens there.
        await #expect(throws: TransportError.connectionRefused) {
            try await kind.make().load(.get(URL(string: "http://127.0.0.1:1/a.png")!), into: CollectingSink())
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aHostThatDoesNotResolveIsHostNotFound(kind: LoaderKind) async throws {
        // .invalid never resolves (RFC 6761), with or without a network.
        await #expect(throws: TransportError.hostNotFound("nonexistent.invalid")) {
            try await kind.make().load(.get(URL(string: "http://nonexistent.invalid/a.png")!), into: CollectingSink())
        }
    }

    /// An https URL answered by a plain-HTTP server: a TLS failure, which no retry mends.
    @Test(arguments: LoaderKind.allCases)
    func tlsToAPlainServerIsATLSFailure(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 100), contentType: "image/png"), at: "/a.png")
            let https = URL(string: "https://127.0.0.1:\(server.port)/a.png")!
            let error = await #expect(throws: TransportError.self) {
                try await kind.make().load(.get(https), into: CollectingSink())
            }
            guard case .tls? = error else {
                Issue.record("expected a TLS failure, got \(String(describing: error))")
                return
            }
            #expect(error?.canSucceedOnRetry == false)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aBodyCutShortIsConnectionLostAfterWhatArrived(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 100_000), contentType: "image/png"), at: "/a.png", faults: [.truncated(after: 30_000)])
            let sink = CollectingSink()
            let error = await #expect(throws: TransportError.self) {
                try await kind.make().load(.get(server.url(for: "/a.png")), into: sink)
            }
            #expect(error == .connectionLost(received: Int64(sink.body.count)))
            #expect(sink.body.count <= 30_000)
        }
    }

    /// A body with no Content-Length ends when the server closes the connection: a loader cannot
    /// tell a whole one from a cut one, so it delivers both with no length, and the pipeline
    /// judges the image's structure (FetchStageTests.aCloseDelimitedBody…).
    @Test(arguments: LoaderKind.allCases)
    func aCloseDelimitedBodyArrivesWithNoLength(kind: LoaderKind) async throws {
        let server = try RawResponseServer()
        defer { server.stop() }
        let image = fakePNG(size: 70_000)
        server.respondCloseDelimited(at: "/whole.png", body: image, contentType: "image/png")
        server.respondCloseDelimited(at: "/cut.png", body: image, sent: 30_000, contentType: "image/png")
        let loader = kind.make()
        for (path, expected) in [("/whole.png", image), ("/cut.png", image.prefix(30_000))] {
            let sink = CollectingSink()
            let head = try await loader.load(.get(server.url(for: path)), into: sink)
            #expect(head.status == 200)
            #expect(head.expectedLength == nil)
            #expect(head.uncompressedLength == nil)
            #expect(sink.body == expected)
        }
    }

    /// Redirects lead to http and https only: a Location with another scheme is refused, never
    /// fetched (URLSession on Linux used to turn `file:///etc/passwd` into `GET /etc/passwd`).
    @Test(arguments: LoaderKind.allCases, ["file:///etc/passwd", "ftp://127.0.0.1/a.png", "gopher://127.0.0.1/a"])
    func aRedirectToAnotherSchemeIsRefused(kind: LoaderKind, location: String) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(Data(), contentType: "text/plain"), at: "/moved.png", faults: [.redirect(to: location, status: 302)])
            server.publish(.data(Data("root:x:0:0".utf8), contentType: "text/plain"), at: "/etc/passwd")
            let sink = CollectingSink()
            let scheme = String(location.prefix { $0 != ":" })
            await #expect(throws: TransportError.unsupportedScheme(scheme, redirected: true)) {
                try await kind.make().load(.get(server.url(for: "/moved.png")), into: sink)
            }
            #expect(sink.body.isEmpty)
            #expect(server.requests(for: "/etc/passwd").isEmpty)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aRedirectLoopIsTooManyRedirects(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(Data(), contentType: "text/plain"), at: "/loop.png", faults: [.redirect(to: "/loop.png", status: 302)])
            await #expect(throws: TransportError.tooManyRedirects(limit: 10)) {
                try await kind.make().load(.get(server.url(for: "/loop.png")), into: CollectingSink())
            }
            #expect(server.requests(for: "/loop.png").count == 11)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aRedirectToHTTPSIsFollowed(kind: LoaderKind) async throws {
        // The https side is a plain server, so following shows as a TLS failure rather than a refusal.
        try await withLoopbackServer { server, _ in
            let https = "https://127.0.0.1:\(server.port)/final.png"
            server.publish(.data(Data(), contentType: "text/plain"), at: "/moved.png", faults: [.redirect(to: https, status: 301)])
            let error = await #expect(throws: TransportError.self) {
                try await kind.make().load(.get(server.url(for: "/moved.png")), into: CollectingSink())
            }
            guard case .tls? = error else {
                Issue.record("expected the https redirect to be followed, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aServerThatDoesNotAnswerTimesOut(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            server.publish(.data(fakePNG(size: 100), contentType: "image/png"), at: "/a.png", faults: [.delay(.seconds(3))])
            let started = ContinuousClock.now
            await #expect(throws: TransportError.timedOut(seconds: 0.5, received: 0)) {
                try await kind.make(idleTimeout: 0.5).load(.get(server.url(for: "/a.png")), into: CollectingSink())
            }
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
            await #expect(throws: TransportError.connectionLost(received: 0)) {
                try await kind.make().load(.get(server.url(for: "/a.png")), into: sink)
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
            let task = Task { try await loader.load(.get(server.url(for: "/a.png")), into: sink) }
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
                try await kind.make().load(.get(server.url(for: "/a.png")), into: CollectingSink(refusesBody: true))
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
                        _ = try await loader.load(.get(server.url(for: "/\(index).png")), into: sink)
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
            _ = try await CurlDataLoader(idleTimeout: .infinity).load(.get(server.url(for: "/a.png")), into: sink)
            #expect(sink.body == image)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func schemesOtherThanHTTPAreRefused(kind: LoaderKind) async throws {
        await #expect(throws: TransportError.unsupportedScheme("ftp", redirected: false)) {
            try await kind.make().load(.get(URL(string: "ftp://127.0.0.1/a.png")!), into: CollectingSink())
        }
    }

    /// Every transfer of a libcurl loader shares one multi handle and one thread, so a second
    /// request to a server reuses the connection the first one opened.
    @Test func curlTransfersShareConnectionsAndOneThread() async throws {
        try await withLoopbackServer { server, _ in
            for index in 0..<6 {
                server.publish(.data(fakePNG(size: 20_000, seed: UInt8(index)), contentType: "image/png"), at: "/\(index).png")
            }
            let loader = CurlDataLoader(idleTimeout: 5)
            #expect(loader.threadsStarted == 0, "nothing is set up before the first request")
            for index in 0..<6 {
                _ = try await loader.load(.get(server.url(for: "/\(index).png")), into: CollectingSink())
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask { _ = try await loader.load(.get(server.url(for: "/\(index).png")), into: CollectingSink()) }
                }
                try await group.waitForAll()
            }
            #expect(loader.threadsStarted == 1)
            let sequential = server.requests().prefix(6).map(\.connection)
            #expect(Set(sequential).count == 1, "one kept-alive connection for requests made one after another")
        }
    }
}

/// Catalog pages come through the same loaders as images.
@Suite("Catalog pages over loopback")
struct CatalogFetcherTests {
    @Test(arguments: LoaderKind.allCases)
    func aPageIsFetchedWhole(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            let page = Data(#"{"images": [{"name": "a", "url": "a.jpg"}]}"#.utf8)
            server.publish(.data(page, contentType: "application/json"), at: "/c.json")
            let catalog = try await CatalogLoader(loader: kind.make()).loadFirstPage(from: .remote(server.url(for: "/c.json")))
            #expect(catalog.images.map(\.urlString) == [server.url(for: "/a.jpg").absoluteString])
            #expect(server.requests(for: "/c.json").first?.header("accept") == "application/json")
        }
    }

    /// The limit holds while the page streams: the transfer stops there, it does not download the rest first.
    @Test(arguments: LoaderKind.allCases)
    func aPageOverTheLimitIsCutOffAsItStreams(kind: LoaderKind) async throws {
        try await withLoopbackServer { server, _ in
            // No Content-Length to refuse it by, and slow enough that stopping early shows.
            let raw = try RawResponseServer()
            defer { raw.stop() }
            let page = Data(repeating: UInt8(ascii: " "), count: 200_000)
            raw.respondCloseDelimited(at: "/big.json", body: page, contentType: "application/json")
            let error = await #expect(throws: CatalogFetchError.self) {
                try await CatalogFetcher(loader: kind.make()).fetchCatalog(from: raw.url(for: "/big.json"), limit: 50_000)
            }
            #expect(error?.description == "larger than 50000 bytes")
            // With a Content-Length over the limit, nothing of the body is taken at all.
            server.publish(
                .data(page, contentType: "application/json"), at: "/c.json",
                faults: [.slowBody(chunkSize: 10_000, delayPerChunk: .milliseconds(50))])
            let started = ContinuousClock.now
            await #expect(throws: CatalogFetchError.self) {
                try await CatalogFetcher(loader: kind.make()).fetchCatalog(from: server.url(for: "/c.json"), limit: 50_000)
            }
            #expect(ContinuousClock.now - started < .seconds(0.9), "the 1 s body was not waited for")
            try await eventually { server.requests(for: "/c.json").first?.outcome == .aborted }
        }
    }
}

/// libcurl is opened on the first transfer; when it cannot be, the transfer fails with one line
/// naming the package to install, and nothing else breaks.
@Suite("libcurl opened on demand")
struct CurlLibraryTests {
    @Test func aMissingLibcurlIsATransportErrorNamingItsPackage() {
        guard case .failure(let error) = CurlLibrary.load(soname: "libcurl.so.999", package: "libcurl999") else {
            Issue.record("a library that is not there was loaded")
            return
        }
        guard case .local(let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(reason.hasPrefix("libcurl.so.999 cannot be loaded (install the Debian package libcurl999): "))
        #expect(!reason.contains("\n"))
    }
}
