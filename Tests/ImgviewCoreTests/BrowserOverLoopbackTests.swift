import Foundation
import ImgviewCurl
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline

/// The presenter over the real pipeline, the real fetcher and a real server on loopback.
@MainActor
@Suite("Browser over loopback")
struct BrowserOverLoopbackTests {
    /// A catalog whose first image arrives slowly (4 kB every 50 ms) and stops half way until the
    /// gate opens, then `fastCount` quick ones.
    func withSlowCatalog(
        fastCount: Int, _ body: (LoopbackServer, [AppImage], BrowserPresenter, SpyBrowserView, URL, BodyGate) async throws -> Void
    ) async throws {
        let gate = BodyGate()
        // Whatever happens, the server's held body goes on, so the server can stop.
        defer { gate.open() }
        try await withLoopbackServer { server, folder in
            server.publish(
                .data(stubImage(width: 40, height: 30) + Data(count: 200_000), contentType: "image/png"), at: "/slow.png",
                faults: [.held(after: 100_000, until: gate, chunkSize: 4096, delayPerChunk: .milliseconds(50))])
            var images = [AppImage(name: "slow", url: server.url(for: "/slow.png"))]
            for index in 0..<fastCount {
                server.publish(
                    .data(stubImage(width: 30, height: 40, grey: UInt8(index * 40)), contentType: "image/png"), at: "/\(index).png")
                images.append(AppImage(name: "fast\(index)", url: server.url(for: "/\(index).png")))
            }
            let service = ImageFetcher(
                configuration: .init(dataLoader: CurlDataLoader(idleTimeout: 5), diskCache: try DiskCache(directory: folder)))
            let pipeline = ImagePipeline(configuration: .init(fetcher: service, decoder: TrailingBytesStubDecoder()))
            let view = SpyBrowserView()
            let presenter = BrowserPresenter(
                catalog: Catalog(images: images, origin: .builtIn), configuration: .init(pipeline: pipeline, saveFolder: folder),
                terminalSize: TerminalSize(columns: 100, rows: 30), mode: .ascii, colors: .none)
            presenter.view = view
            presenter.start()
            try await eventually { view.last?.phase.percent ?? 0 > 0 }
            try await body(server, images, presenter, view, folder, gate)
            presenter.shutDown()
        }
    }

    @Test func comingBackToANeighbourContinuesItsDownload() async throws {
        try await withSlowCatalog(fastCount: 1) { server, images, presenter, view, _, gate in
            presenter.handle(.next)
            try await eventually { view.shownURL == images[1].url && view.isShowingPreview }
            let percentWhenLeft = server.requests(for: "/slow.png").count
            presenter.handle(.previous)
            // The download went on at low priority meanwhile (held half way, so it is still under
            // way): it shows progress at once, then the picture.
            #expect(view.last?.phase.percent ?? 0 > 0)
            gate.open()
            try await eventually { view.shownURL == images[0].url && view.isShowingPreview }
            #expect(percentWhenLeft == 1)
            #expect(server.requests(for: "/slow.png").count == 1, "one request, continued, not started again")
            #expect(server.requests(for: "/slow.png").first?.outcome != .aborted)
        }
    }

    @Test func leavingForATabFarAwayAbortsTheTransfer() async throws {
        try await withSlowCatalog(fastCount: 3) { server, images, presenter, view, folder, gate in
            presenter.handle(.jump(3))
            try await eventually { view.shownURL == images[3].url && view.isShowingPreview }
            // The held body goes on into a connection the client has closed.
            gate.open()
            try await eventually { server.requests(for: "/slow.png").first?.outcome == .aborted }
            #expect(server.requests(for: "/slow.png").count == 1)
            #expect(server.requests(for: "/2.png").count == 1, "the neighbour is prefetched once it shows")
            // The slow image was not cached half-written.
            #expect(DiskCache.entryExists(in: folder, for: images[0].url) == false)
        }
    }
}

/// The stub decoder, reading only the stub header at the start of a longer body.
struct TrailingBytesStubDecoder: ImageDecoding {
    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try StubDecoder().inspect(Self.header(of: bytes), probe: probe)
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        try StubDecoder().decode(Self.header(of: bytes), header: header, request: request)
    }

    func makeProgressiveDecoder(for format: ImageFormat, sizing: @escaping ProgressiveSizing) -> (any ProgressiveImageDecoder)? {
        StubDecoder.Progressive()
    }

    private static func header(of bytes: Data) -> Data {
        Data(bytes.prefix { $0 != 0 })
    }
}

extension DiskCache {
    /// Whether the cache in `folder` has an entry for `url`.
    static func entryExists(in folder: URL, for url: URL) -> Bool {
        (try? DiskCache(directory: folder))?.entry(for: url) != nil
    }
}
