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

    /// An entry's size is its file's to say (damaged, or written by hand): sizes past what an Int64
    /// holds together add up to the most it holds, and removing one leaves no negative total.
    @Test func theCachePanelSumsSizesPastAnInt64() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder)
        let date = Date()
        for index in 0..<2 {
            let data = fakePNG(size: 100, seed: UInt8(index + 1))
            let file = try cache.makeTemporaryFile()
            try file.write(data)
            try file.finish()
            let url = URL(string: "http://h/\(index).png")!
            _ = try cache.store(
                file,
                as: CacheEntry(
                    url: url, finalURL: url, contentType: "image/png", format: .png, byteCount: Int64(data.count),
                    sha256: FileDigestForTests.sha256(data), etag: nil, lastModified: nil, fetchedAt: date, lastAccessedAt: date,
                    freshUntil: date.addingTimeInterval(60)))
        }
        // Each entry file then says it holds 2⁶³ − 2 bytes.
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for metadata in files where metadata.pathExtension == "json" {
            let text = try String(contentsOf: metadata, encoding: .utf8)
            guard text.contains("\"byteCount\":100,") else { continue }
            try text.replacingOccurrences(of: "\"byteCount\":100,", with: "\"byteCount\":\(Int64.max - 1),")
                .write(to: metadata, atomically: true, encoding: .utf8)
        }
        #expect(cache.entries().map(\.byteCount) == [Int64.max - 1, Int64.max - 1])
        let presenter = makePresenter(images: [], cache: cache)
        presenter.handle(.toggleCache)
        try await eventually { panel?.rows.count == 2 }
        #expect(panel?.totalBytes == Int64.max)
        presenter.handle(.remove)
        try await eventually { panel?.rows.count == 1 }
        #expect(panel?.totalBytes == 1)
        presenter.shutDown()
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
