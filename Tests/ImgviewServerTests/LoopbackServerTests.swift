import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewServer
@testable import ImgviewSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The fault-injecting server, checked with real `URLSession` requests over loopback.
@Suite("Loopback server and its faults")
struct LoopbackServerTests {
    static let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    func withServer(_ body: (LoopbackServer) async throws -> Void) async throws {
        let server = try await LoopbackServer.start()
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func session(timeout: TimeInterval = 10) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }

    func get(_ url: URL, headers: [String: String] = [:], timeout: TimeInterval = 10) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session(timeout: timeout).data(for: request)
        return (data, response as! HTTPURLResponse)
    }

    @Test func servesAResourceWithValidators() async throws {
        try await withServer { server in
            let modified = Date(timeIntervalSince1970: 1_700_000_000)
            server.publish(.data(Self.body, contentType: "image/png", lastModified: modified, cacheControl: "max-age=60"), at: "/a.png")
            let (data, response) = try await get(server.url(for: "/a.png"))
            #expect(data == Self.body)
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(response.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
            #expect(response.value(forHTTPHeaderField: "ETag") != nil)
            #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Tue, 14 Nov 2023 22:13:20 GMT")
            let recorded = server.requests(for: "/a.png")
            #expect(recorded.count == 1)
            try await eventually { server.requests(for: "/a.png").first?.outcome == .completed }
            #expect(server.requests(for: "/a.png").first?.bodyBytesSent == Self.body.count)
        }
    }

    @Test func unknownPathsAre404() async throws {
        try await withServer { server in
            let (_, response) = try await get(server.url(for: "/nothing"))
            #expect(response.statusCode == 404)
        }
    }

    @Test func answersConditionalRequestsWith304AndNoBody() async throws {
        try await withServer { server in
            let modified = Date(timeIntervalSince1970: 1_700_000_000)
            server.publish(.data(Self.body, contentType: "image/png", lastModified: modified), at: "/a.png")
            let (_, first) = try await get(server.url(for: "/a.png"))
            let etag = try #require(first.value(forHTTPHeaderField: "ETag"))

            let (data, byTag) = try await get(server.url(for: "/a.png"), headers: ["If-None-Match": etag])
            #expect(byTag.statusCode == 304)
            #expect(data.isEmpty)

            let (_, byDate) = try await get(server.url(for: "/a.png"), headers: ["If-Modified-Since": HTTPDate.string(from: modified)])
            #expect(byDate.statusCode == 304)

            let (changed, other) = try await get(server.url(for: "/a.png"), headers: ["If-None-Match": "\"other\""])
            #expect(other.statusCode == 200)
            #expect(changed == Self.body)
            #expect(server.requests(for: "/a.png").map(\.status) == [200, 304, 304, 200])
        }
    }

    @Test func anyStatusCodeWithHeaders() async throws {
        try await withServer { server in
            server.publish(
                .data(Self.body, contentType: "image/png"), at: "/a.png", faults: [.status(503, headers: ["Retry-After": "2"]), .none])
            let (_, first) = try await get(server.url(for: "/a.png"))
            #expect(first.statusCode == 503)
            #expect(first.value(forHTTPHeaderField: "Retry-After") == "2")
            // The last fault repeats: here, a well-behaved answer.
            let (data, second) = try await get(server.url(for: "/a.png"))
            #expect(second.statusCode == 200)
            #expect(data == Self.body)
        }
    }

    @Test func delayBeforeHeadersTimesOutAClient() async throws {
        try await withServer { server in
            server.publish(.data(Self.body, contentType: "image/png"), at: "/a.png", faults: [.delay(.seconds(5))])
            let started = ContinuousClock.now
            await #expect(throws: URLError.self) {
                _ = try await get(server.url(for: "/a.png"), timeout: 0.5)
            }
            #expect(ContinuousClock.now - started < .seconds(4))
        }
    }

    @Test func slowBodyArrivesWholeButLate() async throws {
        try await withServer { server in
            let small = Self.body.prefix(4000)
            server.publish(
                .data(Data(small), contentType: "image/png"), at: "/a.png",
                faults: [.slowBody(chunkSize: 1000, delayPerChunk: .milliseconds(100))])
            let started = ContinuousClock.now
            let (data, _) = try await get(server.url(for: "/a.png"))
            #expect(data == small)
            #expect(ContinuousClock.now - started >= .milliseconds(350))
        }
    }

    @Test func aHeldBodyStopsWhereItIsToldUntilTheGateOpens() async throws {
        try await withServer { server in
            let gate = BodyGate()
            defer { gate.open() }
            let small = Self.body.prefix(4000)
            server.publish(
                .data(Data(small), contentType: "image/png"), at: "/a.png",
                faults: [.held(after: 2500, until: gate, chunkSize: 1000, delayPerChunk: .zero)])
            let task = Task { try await get(server.url(for: "/a.png")) }
            try await eventually { server.requests(for: "/a.png").first?.bodyBytesSent == 2500 }
            #expect(server.requests(for: "/a.png").first?.outcome == .inProgress)
            gate.open()
            let (data, _) = try await task.value
            #expect(data == small)
        }
    }

    @Test func truncatedBodyIsAnErrorForTheClient() async throws {
        try await withServer { server in
            server.publish(.data(Self.body, contentType: "image/png"), at: "/a.png", faults: [.truncated(after: 1000)])
            await #expect(throws: (any Error).self) {
                _ = try await get(server.url(for: "/a.png"))
            }
            try await eventually { server.requests(for: "/a.png").first?.outcome == .aborted }
            #expect(server.requests(for: "/a.png").first?.bodyBytesSent == 1000)
        }
    }

    @Test func redirectsAreFollowed() async throws {
        try await withServer { server in
            server.publish(.data(Self.body, contentType: "image/png"), at: "/final.png")
            server.publish(.data(Data(), contentType: "text/plain"), at: "/old.png", faults: [.redirect(to: "/middle.png", status: 301)])
            server.publish(
                .data(Data(), contentType: "text/plain"), at: "/middle.png",
                faults: [.redirect(to: server.url(for: "/final.png").absoluteString)])
            let (data, response) = try await get(server.url(for: "/old.png"))
            #expect(data == Self.body)
            #expect(response.url?.path == "/final.png")
            #expect(server.requests().map(\.path) == ["/old.png", "/middle.png", "/final.png"])
        }
    }

    @Test func gzipBodiesAreDecodedByTheClient() async throws {
        try await withServer { server in
            let text = Data(String(repeating: "imgview ", count: 10_000).utf8)
            server.publish(.data(text, contentType: "text/plain"), at: "/t.txt", faults: [.gzipped])
            let (data, response) = try await get(server.url(for: "/t.txt"), headers: ["Accept-Encoding": "gzip"])
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
            #expect(data == text)
            try await eventually { server.requests(for: "/t.txt").first?.outcome == .completed }
            #expect(server.requests(for: "/t.txt")[0].bodyBytesSent < text.count / 10)
        }
    }

    @Test func wrongContentTypeAndReplacementBody() async throws {
        try await withServer { server in
            server.publish(
                .data(Self.body, contentType: "image/png"), at: "/a.png", faults: [.body(Data("<html>".utf8), contentType: "text/html")])
            let (data, response) = try await get(server.url(for: "/a.png"))
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/html")
            #expect(data == Data("<html>".utf8))
            server.setFaults([.contentType("text/plain")], for: "/a.png")
            let (same, mislabelled) = try await get(server.url(for: "/a.png"))
            #expect(mislabelled.value(forHTTPHeaderField: "Content-Type") == "text/plain")
            #expect(same == Self.body)
        }
    }

    @Test func aClientThatGoesAwayIsRecordedAsAborted() async throws {
        try await withServer { server in
            server.publish(
                .data(Self.body, contentType: "image/png"), at: "/a.png",
                faults: [.slowBody(chunkSize: 1000, delayPerChunk: .milliseconds(50))])
            let task = Task { try await get(server.url(for: "/a.png")) }
            try await eventually { (server.requests(for: "/a.png").first?.bodyBytesSent ?? 0) > 0 }
            task.cancel()
            try await eventually { server.requests(for: "/a.png").first?.outcome == .aborted }
            #expect(server.requests(for: "/a.png")[0].bodyBytesSent < Self.body.count)
        }
    }

    @Test func aBusyPortIsAClearError() async throws {
        try await withServer { server in
            let error = await #expect(throws: LoopbackServerError.self) {
                _ = try await LoopbackServer.start(port: server.port)
            }
            #expect(error?.description == "cannot listen on 127.0.0.1:\(server.port): address in use")
        }
    }

    @Test func headRequestsGetHeadersOnly() async throws {
        try await withServer { server in
            server.publish(.data(Self.body, contentType: "image/png"), at: "/a.png")
            var request = URLRequest(url: server.url(for: "/a.png"))
            request.httpMethod = "HEAD"
            let (data, response) = try await session().data(for: request)
            #expect(data.isEmpty)
            #expect((response as! HTTPURLResponse).value(forHTTPHeaderField: "Content-Length") == String(Self.body.count))
        }
    }
}
