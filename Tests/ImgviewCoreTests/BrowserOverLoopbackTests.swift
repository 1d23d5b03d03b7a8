import Foundation
import ImgviewCurl
import ImgviewServer
import Testing

@testable import ImgviewCore

/// The presenter over the real image service and a real server on loopback.
@MainActor
@Suite("Browser over loopback")
struct BrowserOverLoopbackTests {
    @Test func switchingAwayFromASlowImageAbortsItsTransferAndShowsTheNewOne() async throws {
        let server = try await LoopbackServer.start()
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        server.publish(
            .data(stubImage(width: 40, height: 30) + Data(count: 200_000), contentType: "image/png"), at: "/slow.png",
            faults: [.slowBody(chunkSize: 4096, delayPerChunk: .milliseconds(50))])
        server.publish(.data(stubImage(width: 30, height: 40), contentType: "image/png"), at: "/fast.png")
        let images = [
            AppImage(name: "slow", url: server.url(for: "/slow.png")), AppImage(name: "fast", url: server.url(for: "/fast.png")),
        ]
        let service = ImageService(
            configuration: .init(dataLoader: CurlDataLoader(idleTimeout: 5), diskCache: try DiskCache(directory: folder)))
        let view = SpyBrowserView()
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(loader: service, decoder: TrailingBytesStubDecoder(), saveFolder: folder),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .ascii, colors: .none)
        presenter.view = view
        presenter.start()
        try await eventually { view.last?.phase.percent ?? 0 > 0 }
        presenter.handle(.next)
        try await eventually { view.shownURL == images[1].url && view.isShowingPreview }
        try await eventually(timeout: .seconds(10)) { server.requests(for: "/slow.png").first?.outcome == .aborted }
        // Once the fast image shows, its neighbour (the slow one) is prefetched again: that is all.
        #expect(server.requests(for: "/slow.png").count <= 2)
        #expect(server.requests(for: "/fast.png").count == 1)
        // The slow image was not cached half-written.
        #expect(DiskCache.entryExists(in: folder, for: images[0].url) == false)
        presenter.shutDown()
        await server.stop()
    }
}

/// The stub decoder, reading only the stub header at the start of a longer body.
struct TrailingBytesStubDecoder: ImageDecoding {
    func inspect(_ bytes: Data) throws(ImageDecodingError) -> ImageHeader {
        try StubDecoder().inspect(Self.header(of: bytes))
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        try StubDecoder().decode(Self.header(of: bytes), header: header, request: request)
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
