import Foundation
import HTTPTypes
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// Answers that look like an image's but are not the image asked for: each is refused, or leads
/// to a fetch of the whole, and none is ever stored (issue 26, "Wrong bodies cached").
@Suite("Answers not taken for the image")
struct UntrustedResponseTests {
    static let jpeg = try! Data(contentsOf: repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))
    let date = ManualDate()

    func makePipeline(cache folder: URL, retries: Int = 0, loader: LoaderKind = .curl) throws -> ImagePipeline {
        ImagePipeline.fetching(
            .init(
                dataLoader: loader.make(idleTimeout: 5), diskCache: try DiskCache(directory: folder, now: { [date] in date.now }),
                retry: RetryPolicy(maxRetries: retries, baseDelay: .milliseconds(10)), now: { [date] in date.now }))
    }

    func expectNothingStored(in folder: URL, _ comment: Comment? = nil) throws {
        #expect(try DiskCache(directory: folder).entries().isEmpty, comment)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("v1/tmp").path).isEmpty, comment)
    }

    /// A gzip stream cut short, with a Content-Length that matches what was sent. libcurl's loader
    /// sees the stream stop; URLSession's cannot, so the image's own end decides.
    @Test(arguments: LoaderKind.allCases)
    func aCompressedBodyCutShortIsNeverStored(loader: LoaderKind) async throws {
        try await withLoopbackServer { server, folder in
            server.publish(
                .data(Self.jpeg, contentType: "image/jpeg"), at: "/a.jpg",
                faults: [.encoded(.gzip, evenIfNotAccepted: true, cutAfter: 20_000)])
            let url = server.url(for: "/a.jpg")
            let error = await #expect(throws: ImagePipelineError.self) {
                try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: url))
            }
            switch (loader, error) {
            case (.curl, .transport(url, .badResponse("the gzip body stops before the end of its gzip stream"))?): break
            #if URLSession
                case (.urlSession, .truncated(url, _, nil)?): break
            #endif
            default: Issue.record("\(loader): \(String(describing: error))")
            }
            try expectNothingStored(in: folder)
        }
    }

    /// The same body compressed whole: stored by both loaders (URLSession's after the image's end was seen).
    @Test(arguments: LoaderKind.allCases)
    func aCompressedBodyThatEndsIsStored(loader: LoaderKind) async throws {
        try await withLoopbackServer { server, folder in
            server.publish(.data(Self.jpeg, contentType: "image/jpeg"), at: "/a.jpg", faults: [.encoded(.gzip, evenIfNotAccepted: true)])
            let response = try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: server.url(for: "/a.jpg")))
            #expect(try response.data() == Self.jpeg)
            #expect(response.isCached)
        }
    }

    /// A 206 to a plain GET is a part of the image, not the image.
    @Test(arguments: LoaderKind.allCases)
    func anUnaskedPartialContentIsRefused(loader: LoaderKind) async throws {
        try await withLoopbackServer { server, folder in
            server.publish(.data(Self.jpeg, contentType: "image/jpeg"), at: "/a.jpg", faults: [.partialContent(0..<20_000)])
            let url = server.url(for: "/a.jpg")
            await #expect(throws: ImagePipelineError.misusedStatus(url, status: 206, .partialContentUnasked)) {
                try await makePipeline(cache: folder, retries: 2, loader: loader).bytes(for: ImageRequest(url: url))
            }
            #expect(server.requests(for: "/a.jpg").count == 1)
            try expectNothingStored(in: folder)
        }
    }

    /// A 304 whose strong ETag is not the stored one is about another representation: the stored
    /// body is not renewed (RFC 9111 §4.3.4) but fetched whole, once.
    @Test(arguments: LoaderKind.allCases)
    func aNotModifiedAboutAnotherImageRenewsNothing(loader: LoaderKind) async throws {
        try await withLoopbackServer { server, folder in
            server.publish(.data(Self.jpeg, contentType: "image/jpeg", cacheControl: "max-age=60"), at: "/a.jpg")
            let url = server.url(for: "/a.jpg")
            let first = try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: url))
            // The image changes; the server answers the next revalidation 304 anyway, with the new tag.
            let changed = Self.jpeg + Data([0xFF, 0xD9])
            let changedTag = ServedResource.data(changed, contentType: "image/jpeg").etag!
            server.publish(
                .data(changed, contentType: "image/jpeg", cacheControl: "max-age=60"), at: "/a.jpg",
                faults: [.status(304, headers: ["ETag": changedTag, "Cache-Control": "max-age=60"]), .none])
            date.advance(by: 61)
            let second = try await makePipeline(cache: folder, loader: loader).bytes(for: ImageRequest(url: url))
            #expect(second.source == .network)
            #expect(try second.data() == changed)
            let requests = server.requests(for: "/a.jpg")
            #expect(requests.map(\.status) == [200, 304, 200])
            #expect(requests[1].header("If-None-Match") == first.entry.etag)
            #expect(requests[2].header("If-None-Match") == nil)
            let stored = try #require(try DiskCache(directory: folder).entry(for: url))
            #expect(stored.etag == changedTag && stored.sha256 == sha256Hex(changed))
        }
    }

    /// A 304 that names the stored image (weakly, or by its date when it has no tag) renews it.
    @Test(arguments: [["ETag": "W/$TAG"], ["Last-Modified": "$DATE"], [:]])
    func aNotModifiedAboutTheStoredImageRenewsIt(headers: [String: String]) async throws {
        try await withLoopbackServer { server, folder in
            let modified = Date(timeIntervalSince1970: 1_700_000_000)
            server.publish(.data(Self.jpeg, contentType: "image/jpeg", lastModified: modified, cacheControl: "max-age=60"), at: "/a.jpg")
            let url = server.url(for: "/a.jpg")
            let first = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            let answer = headers.mapValues {
                $0.replacingOccurrences(of: "$TAG", with: first.entry.etag!).replacingOccurrences(
                    of: "$DATE", with: HTTPDate.string(from: modified))
            }
            server.setFaults([.status(304, headers: answer)], for: "/a.jpg")
            date.advance(by: 61)
            let second = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
            #expect(second.source == .revalidated, "\(headers)")
            #expect(server.requests(for: "/a.jpg").count == 2)
        }
    }

    /// Statuses that cannot answer the request they came to: each named for what the server did.
    @Test(arguments: LoaderKind.allCases)
    func statusesThatDoNotFitTheRequestAreNamed(loader: LoaderKind) async throws {
        try await withLoopbackServer { server, folder in
            server.publish(.data(Self.jpeg, contentType: "image/jpeg"), at: "/304.jpg", faults: [.status(304)])
            server.publish(.data(Self.jpeg, contentType: "image/jpeg"), at: "/302.jpg", faults: [.status(302)])
            let pipeline = try makePipeline(cache: folder, retries: 2, loader: loader)
            for (path, misuse) in [("/304.jpg", StatusMisuse.notModifiedUnasked), ("/302.jpg", .redirectWithoutLocation)] {
                let url = server.url(for: path)
                await #expect(throws: ImagePipelineError.misusedStatus(url, status: Int(path.dropFirst().prefix(3))!, misuse)) {
                    try await pipeline.bytes(for: ImageRequest(url: url))
                }
                #expect(server.requests(for: path).count == 1)
            }
            try expectNothingStored(in: folder)
        }
    }

    /// `Vary: *`: the response can never be chosen for another request, so it is not stored.
    @Test func aResponseThatVariesOnEverythingIsNeverReused() async throws {
        try await withLoopbackServer { server, folder in
            server.publish(
                .data(Self.jpeg, contentType: "image/jpeg", cacheControl: "max-age=3600"), at: "/a.jpg",
                faults: [.headers(["Vary": "Accept-Language, *"])])
            let url = server.url(for: "/a.jpg")
            for _ in 0..<2 {
                let response = try await makePipeline(cache: folder).bytes(for: ImageRequest(url: url))
                #expect(response.source == .network && !response.isCached)
            }
            #expect(server.requests(for: "/a.jpg").count == 2)
            #expect(try DiskCache(directory: folder).entries().isEmpty)
        }
    }

    /// A Retry-After longer than a number holds is a wait past any limit: the failure is reported
    /// at once, naming the wait, not retried on the backoff.
    @Test(arguments: ["99999999999999999999", "3600"])
    func aRetryAfterPastTheLimitFailsAtOnce(retryAfter: String) async throws {
        try await withLoopbackServer { server, folder in
            server.publish(
                .data(Self.jpeg, contentType: "image/jpeg"), at: "/a.jpg", faults: [.status(503, headers: ["Retry-After": retryAfter])])
            let url = server.url(for: "/a.jpg")
            await #expect(throws: ImagePipelineError.waitTooLong(url, status: 503, retryAfter: retryAfter)) {
                try await makePipeline(cache: folder, retries: 3).bytes(for: ImageRequest(url: url))
            }
            #expect(server.requests(for: "/a.jpg").count == 1)
        }
    }

    @Test func retryAfterIsReadStrictly() {
        let policy = RetryPolicy(maxRetryAfter: .seconds(120))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(policy.askedWait(nil, now: now) == .none)
        #expect(policy.askedWait(" 7 ", now: now) == .wait(.seconds(7)))
        #expect(policy.askedWait("120", now: now) == .wait(.seconds(120)))
        #expect(policy.askedWait("121", now: now) == .tooLong)
        #expect(policy.askedWait("99999999999999999999", now: now) == .tooLong)
        #expect(policy.askedWait("-5", now: now) == .none)
        #expect(policy.askedWait("soon", now: now) == .none)
        #expect(policy.askedWait(HTTPDate.string(from: now.addingTimeInterval(30)), now: now) == .wait(.seconds(30)))
        #expect(policy.askedWait("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == .tooLong)
    }
}
