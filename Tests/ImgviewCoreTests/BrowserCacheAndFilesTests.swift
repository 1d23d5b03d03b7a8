import Foundation
import ImgviewCurl
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewPipeline

/// The browser over the real fetcher and disk cache: the cache panel scrolls and removes
/// entries; local files are read where they are and never copied into the cache.
@MainActor
@Suite("Browser cache panel and local files")
struct BrowserCacheAndFilesTests {
    let view = SpyBrowserView()

    func makePresenter(images: [AppImage], cache: DiskCache) -> BrowserPresenter {
        let service = ImageFetcher(configuration: .init(dataLoader: CurlDataLoader(idleTimeout: 5), diskCache: cache))
        let pipeline = ImagePipeline(configuration: .init(fetcher: service, decoder: StubDecoder()))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .builtIn),
            configuration: .init(pipeline: pipeline, diskCache: cache, saveFolder: cache.directory),
            terminalSize: TerminalSize(columns: 100, rows: 30), mode: .ascii, colors: .none)
        presenter.view = view
        return presenter
    }

    var panel: CacheOverview? {
        if case .cache(let overview)? = view.last?.overlay { overview } else { nil }
    }

    @Test func theCachePanelScrollsAndRemovesTheSelectedEntry() async throws {
        try await withLoopbackServer { server, folder in
            let images = (0..<3).map { index in
                server.publish(.data(stubImage(grey: UInt8(index * 50)), contentType: "image/png"), at: "/\(index).png")
                return AppImage(name: "pic\(index)", url: server.url(for: "/\(index).png"))
            }
            let cache = try DiskCache(directory: folder)
            let presenter = makePresenter(images: images, cache: cache)
            presenter.start()
            for _ in 0..<2 {
                let shown = view.last?.selectedIndex ?? 0
                try await eventually { view.shownURL == images[shown].url && view.isShowingPreview }
                presenter.handle(.next)
            }
            try await eventually { view.shownURL == images[2].url && view.isShowingPreview }
            try await eventually { cache.entries().count == 3 }
            presenter.handle(.toggleCache)
            try await eventually { panel?.rows.count == 3 }
            #expect(panel?.selectedRow == 0)
            presenter.handle(.lineDown)
            presenter.handle(.lineDown)
            presenter.handle(.lineDown)
            #expect(panel?.selectedRow == 2, "the cursor stops at the last row")
            presenter.handle(.lineUp)
            let doomed = try #require(panel?.rows[1])
            presenter.handle(.remove)
            try await eventually { panel?.rows.count == 2 }
            #expect(view.last?.notice?.text == "removed \(doomed.name ?? "") from the cache")
            #expect(!cache.entries().contains { $0.url == doomed.url })
            #expect(cache.entries().count == 2)
            #expect(panel?.rows.contains { $0.url == doomed.url } == false)
            // Any other key closes the panel, and does nothing else.
            presenter.handle(.previous)
            #expect(view.last?.overlay == nil)
            #expect(view.last?.selectedIndex == 2)
            presenter.shutDown()
        }
    }

    @Test func localFilesAreReadWhereTheyAreAndNeverCached() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pictures = folder.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        for index in [1, 2, 10] { try stubImage(grey: UInt8(index)).write(to: pictures.appendingPathComponent("p\(index).png")) }
        try Data("notes".utf8).write(to: pictures.appendingPathComponent("readme.txt"))
        let (first, rest) = await BackgroundListing.start(ImageListing(sources: [.folder(pictures)], recursive: false))
        #expect(rest == nil)
        #expect(first.map(\.name) == ["p1.png", "p2.png", "p10.png"])
        let cache = try DiskCache(directory: folder.appendingPathComponent("cache"))
        let presenter = makePresenter(images: first, cache: cache)
        presenter.start()
        for index in first.indices {
            try await eventually { view.shownURL == first[index].url && view.isShowingPreview }
            if case .loaded(let shown)? = view.last?.phase { #expect(shown.facts.source == .file || shown.facts.source == .memory) }
            presenter.handle(.next)
        }
        presenter.shutDown()
        #expect(cache.entries().isEmpty, "no cache copies of local files")
    }
}
