import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewBrowser
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// Sort keys handed out by the test: what each URL's file would say.
final class FakeSortKeys: SortKeyReading, @unchecked Sendable {
    private let lock = NSLock()
    private var _keys: [String: ImageSortKeys]
    private(set) var readCount = 0

    init(_ keys: [String: ImageSortKeys]) {
        _keys = keys
    }

    func keys(for images: [AppImage]) async -> [String: ImageSortKeys] {
        lock.withLock {
            readCount += 1
            return Dictionary(uniqueKeysWithValues: images.map { ($0.urlString, _keys[$0.urlString] ?? ImageSortKeys()) })
        }
    }
}

/// Marks and the actions on them, with the spy view: marks stay with their images whatever the
/// list does; copy, save, trash and undo, open and the key-handler each say what they did.
@MainActor
@Suite("Browser marks and actions", .serialized)
struct BrowserMarksAndActionsTests {
    let view = SpyBrowserView()

    /// A presenter over `images`, answered at once by `InstantLoader`.
    func makePresenter(
        _ images: [AppImage], moreTabs: AsyncStream<[AppImage]>? = nil, saveFolder: URL = FileManager.default.temporaryDirectory,
        ordering: ImageOrdering = ImageOrdering(order: .name), sortKeys: any SortKeyReading = FakeSortKeys([:]),
        actions: BrowserActions = BrowserActions()
    ) -> BrowserPresenter {
        let loader = InstantLoader(images: Dictionary(uniqueKeysWithValues: images.map { ($0.url, stubImage()) }))
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .commandLine),
            configuration: .init(
                pipeline: pipeline, moreTabs: moreTabs, saveFolder: saveFolder, neighbourhood: 0, ordering: ordering, sortKeys: sortKeys,
                random: { 0 }, actions: actions),
            terminalSize: TerminalSize(columns: 120, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        return presenter
    }

    static func remote(_ count: Int) -> [AppImage] {
        (0..<count).map { AppImage(name: "image\($0)", url: URL(string: "http://example.test/\($0).png")!) }
    }

    var notice: String? { view.last?.notice?.text }

    @Test func marksStayWithTheirImagesThroughStreamingAndSorting() async throws {
        let images = Self.remote(6)
        let (more, batches) = AsyncStream.makeStream(of: [AppImage].self)
        // Sizes: the later an image, the smaller.
        let keys = FakeSortKeys(
            Dictionary(uniqueKeysWithValues: (0..<8).map { ("http://example.test/\($0).png", ImageSortKeys(byteCount: Int64(100 - $0))) }))
        let presenter = makePresenter(Array(images[0..<4]), moreTabs: more, sortKeys: keys)
        presenter.start()
        presenter.handle(.next)
        presenter.handle(.toggleMark)
        #expect(notice == "marked image1 · 1 marked")
        presenter.handle(.next)
        presenter.handle(.next)
        presenter.handle(.toggleMark)
        #expect(view.last?.marks == [images[1].urlString, images[3].urlString])
        #expect(view.last?.markedImages.map(\.name) == ["image1", "image3"])
        // The strip shows the sign, the status line the count.
        let text = BrowserScreen(state: try #require(view.last)).compose().text
        #expect(text.contains(" •image1  ") && text.contains("[•image3 ]"))
        #expect(text.contains("2 marked"))
        // More images arrive: the marks stay.
        batches.yield(Array(images[4..<6]) + Self.remote(8).suffix(2))
        try await eventually { view.last?.images.count == 8 }
        #expect(view.last?.marks.count == 2)
        // Sorted by size: the selected image stays selected, the marks stay marked.
        presenter.handle(.cycleOrder)  // date: all keys read, none has a date, so listing order
        presenter.handle(.cycleOrder)  // mtime
        presenter.handle(.cycleOrder)  // size
        try await eventually { view.last?.isSorting == false && view.last?.order == .size }
        #expect(view.last?.images.map(\.name) == ["image7", "image6", "image5", "image4", "image3", "image2", "image1", "image0"])
        #expect(view.last?.selectedImage?.name == "image3")
        #expect(view.last?.markedImages.map(\.name) == ["image3", "image1"])
        #expect(keys.readCount >= 1)
        // Mark all, then all again: none; invert: all.
        presenter.handle(.markAll)
        #expect(view.last?.marks.count == 8)
        presenter.handle(.markAll)
        #expect(view.last?.marks.isEmpty == true)
        presenter.handle(.invertMarks)
        #expect(view.last?.marks.count == 8)
        batches.finish()
        presenter.shutDown()
    }

    @Test func copyPutsTheMarkedPathsOnTheClipboardWithOSC52() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let local = ["a b.png", "c.png"].map { AppImage(name: $0, url: folder.appendingPathComponent($0)) }
        let images = local + Self.remote(1)
        let route = Locked(ClipboardRoute(multiplexer: .none))
        let presenter = makePresenter(images, actions: BrowserActions(clipboard: { route.withLock { $0 } }))
        presenter.start()
        // Nothing marked: the selected image.
        presenter.handle(.copy)
        try await eventually { view.written.count == 1 }
        #expect(notice == "copied the path of a b.png to the clipboard (OSC 52)")
        #expect(view.written[0] == Array("\u{1B}]52;c;".utf8) + Array(Data(local[0].url.path.utf8).base64EncodedString().utf8) + [7])
        // Marked: their paths (URLs for remote images), one per line, in the list's order.
        presenter.handle(.last)
        presenter.handle(.toggleMark)
        presenter.handle(.first)
        presenter.handle(.toggleMark)
        presenter.handle(.copy)
        try await eventually { view.written.count == 2 }
        let text = local[0].url.path + "\n" + images[2].urlString
        #expect(view.written[1] == ClipboardRoute.osc52(Array(text.utf8)))
        #expect(notice == "copied 2 paths to the clipboard (OSC 52)")
        // tmux that stores nothing and passes nothing on: said so, nothing sent.
        route.withLock { $0 = ClipboardRoute(multiplexer: .tmux(setClipboard: "external", passthrough: false)) }
        presenter.handle(.copy)
        try await eventually { view.last?.notice?.isError == true }
        #expect(notice?.contains("set -g set-clipboard on") == true)
        #expect(view.written.count == 2)
        // tmux with passthrough as well: the plain request for tmux, the wrapped one for its terminal.
        let (bytes, way) = try ClipboardRoute(multiplexer: .tmux(setClipboard: "on", passthrough: true)).sequence(for: "x")
        #expect(bytes == ClipboardRoute.osc52(Array("x".utf8)) + TerminalRoute.tmuxPassthrough.wrap(ClipboardRoute.osc52(Array("x".utf8))))
        #expect(way == "tmux and its terminal")
        #expect(throws: ClipboardRoute.Refusal.self) {
            try ClipboardRoute(multiplexer: .none).sequence(for: String(repeating: "a", count: 100_001))
        }
        #expect(ClipboardRoute.text(for: ["a\nb", "c\u{1B}d"]) == "a?b\nc?d")
        presenter.shutDown()
    }

    @Test func trashTakesTheTabsAwayAndUndoPutsThemBackInPlace() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pictures = folder.appendingPathComponent("pics")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let images = (0..<5).map { AppImage(name: "p\($0).png", url: pictures.appendingPathComponent("p\($0).png")) }
        for image in images { try stubImage().write(to: image.url) }
        let trash = TrashCan(environment: ["XDG_DATA_HOME": folder.appendingPathComponent("data").path])
        let presenter = makePresenter(images + Self.remote(1), actions: BrowserActions(trashCan: trash))
        presenter.start()
        presenter.handle(.jump(1))
        presenter.handle(.toggleMark)
        presenter.handle(.jump(3))
        presenter.handle(.toggleMark)
        presenter.handle(.jump(2))
        presenter.handle(.trash)
        try await eventually { view.last?.images.count == 4 }
        #expect(notice == "moved 2 images to the trash · u undoes")
        #expect(view.last?.images.map(\.name) == ["p0.png", "p2.png", "p4.png", "image0"])
        #expect(view.last?.selectedImage?.name == "p2.png")
        #expect(view.last?.marks.isEmpty == true)
        #expect(!FileManager.default.fileExists(atPath: images[1].url.path))
        let trashed = folder.appendingPathComponent("data/Trash/files")
        #expect(try FileManager.default.contentsOfDirectory(atPath: trashed.path).sorted() == ["p1.png", "p3.png"])
        // The selected one: its tab goes, the next takes its place.
        presenter.handle(.trash)
        try await eventually { view.last?.images.count == 3 }
        #expect(view.last?.selectedImage?.name == "p4.png")
        #expect(notice == "moved p2.png to the trash · u undoes")
        // Undo puts back the last trash only, in its place, selected.
        presenter.handle(.undo)
        try await eventually { view.last?.images.count == 4 }
        #expect(view.last?.images.map(\.name) == ["p0.png", "p2.png", "p4.png", "image0"])
        #expect(view.last?.selectedImage?.name == "p2.png")
        #expect(notice == "put back p2.png")
        presenter.handle(.undo)
        #expect(notice == "nothing to undo")
        // A remote image cannot go to the trash.
        presenter.handle(.last)
        presenter.handle(.trash)
        try await eventually { view.last?.notice?.isError == true }
        #expect(notice == "image0 is not a local file: only files go to the trash")
        // A file that went away meanwhile: said so, its tab stays.
        presenter.handle(.first)
        try FileManager.default.removeItem(at: images[0].url)
        presenter.handle(.trash)
        try await eventually { view.last?.notice?.isError == true && notice?.hasPrefix("could not move p0.png") == true }
        #expect(notice == "could not move p0.png to the trash: it is gone; left in place")
        #expect(view.last?.images.count == 4)
        presenter.shutDown()
    }

    /// The last tabs trashed while the selected one's preview is still on its way: the preview
    /// that comes after has no tab to be shown in (it was drawn under an empty strip).
    @Test func aPreviewThatComesAfterTheLastTabWentIsNotShown() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = (0..<2).map { AppImage(name: "e\($0).png", url: folder.appendingPathComponent("e\($0).png")) }
        for image in images { try stubImage().write(to: image.url) }
        let loader = HeldImageLoader()
        let pipeline = ImagePipeline(configuration: .init(fetcher: loader, decoder: StubDecoder(), scheduler: WorkerPool(width: 1)))
        let presenter = BrowserPresenter(
            catalog: Catalog(images: images, origin: .commandLine),
            configuration: .init(
                pipeline: pipeline, saveFolder: folder, neighbourhood: 0,
                actions: BrowserActions(trashCan: TrashCan(environment: ["XDG_DATA_HOME": folder.appendingPathComponent("data").path]))),
            terminalSize: TerminalSize(columns: 120, rows: 30), mode: .blocks, colors: .twoFiftySix)
        presenter.view = view
        presenter.start()
        await loader.waitForRequest(images[0].url)
        presenter.handle(.markAll)
        presenter.handle(.trash)
        try await eventually { view.last?.images.isEmpty == true }
        #expect(notice == "moved 2 images to the trash · u undoes")
        loader.release(images[0].url, with: .success(stubImage()))
        // The presenter has taken the answer (shown or not, in the same turn).
        try await eventually { presenter.tasks.isEmpty }
        #expect(view.last?.phase == .idle)
        #expect(!view.isShowingPreview)
        presenter.shutDown()
    }

    @Test func undoBringsBackMarksAndOrderAfterTheListChanged() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = (0..<4).map { AppImage(name: "q\($0).png", url: folder.appendingPathComponent("q\($0).png")) }
        for image in images { try stubImage().write(to: image.url) }
        let trash = TrashCan(environment: ["XDG_DATA_HOME": folder.appendingPathComponent("data").path])
        let keys = FakeSortKeys(
            Dictionary(uniqueKeysWithValues: images.enumerated().map { ($1.urlString, ImageSortKeys(byteCount: Int64(10 - $0))) }))
        let presenter = makePresenter(
            images, ordering: ImageOrdering(order: .size), sortKeys: keys, actions: BrowserActions(trashCan: trash))
        presenter.start()
        try await eventually { view.last?.images.first?.name == "q3.png" && view.last?.isSorting == false }
        presenter.handle(.jump(1))
        presenter.handle(.toggleMark)
        presenter.handle(.trash)
        try await eventually { view.last?.images.count == 3 }
        presenter.handle(.undo)
        try await eventually { view.last?.images.count == 4 }
        #expect(view.last?.images.map(\.name) == ["q3.png", "q2.png", "q1.png", "q0.png"])
        #expect(view.last?.selectedImage?.name == "q2.png")
        #expect(view.last?.markedImages.map(\.name) == ["q2.png"])
        presenter.shutDown()
    }

    @Test func dSavesEveryMarkedImage() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = Self.remote(3)
        let presenter = makePresenter(images, saveFolder: folder)
        presenter.start()
        presenter.handle(.toggleMark)
        presenter.handle(.last)
        presenter.handle(.toggleMark)
        presenter.handle(.save)
        try await eventually { notice?.hasPrefix("saved") == true }
        #expect(notice == "saved 2 images to \(folder.path)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["0.png", "2.png"])
        presenter.shutDown()
    }

    @Test func openHandsTheFilesToTheOpenerInOneCall() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = folder.appendingPathComponent("opened")
        let script = folder.appendingPathComponent("opener")
        try Data("#!/bin/sh\nfor f in \"$@\"; do echo \"$f\" >> '\(record.path)'; done\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let local = AppImage(name: "l.png", url: folder.appendingPathComponent("l.png"))
        try stubImage().write(to: local.url)
        let remote = Self.remote(1)[0]
        let actions = BrowserActions(
            opener: ImageOpener(program: .command(script.path)), copiesFolder: folder.appendingPathComponent("copies").path)
        let presenter = makePresenter([local, remote], actions: actions)
        presenter.start()
        presenter.handle(.markAll)
        presenter.handle(.open)
        try await eventually { notice?.hasPrefix("opened") == true }
        #expect(notice == "opened 2 images with \(script.path)")
        let lines = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map(String.init)
        // The remote image through the caches, into a private folder; the local one where it is.
        #expect(lines.count == 2 && lines[0] == local.url.path)
        #expect(lines[1].hasPrefix(folder.path + "/copies/") && lines[1].hasSuffix("/0.png"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: lines[1])) == stubImage())
        // An opener that fails is one line.
        let failing = makePresenter([local], actions: BrowserActions(opener: ImageOpener(program: .command("exit 3 #"))))
        failing.start()
        failing.handle(.open)
        try await eventually { view.last?.notice?.isError == true }
        #expect(notice == "could not open l.png: exit failed (exit 3)")
        // Nothing to open in: said so.
        #expect(
            ImageOpener(environment: [:]).program
                == .unavailable("no desktop to open in (set IMGVIEW_OPENER to a program that opens images)"))
        #expect(ImageOpener(environment: ["IMGVIEW_OPENER": "feh -F"]).program == .command("feh -F"))
        presenter.shutDown()
        failing.shutDown()
    }

    @Test func theKeyHandlerGetsTheKeyAndTheMarkedPathsAndWhatItRemovedGoes() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = (0..<3).map { AppImage(name: "k\($0).png", url: folder.appendingPathComponent("k\($0).png")) }
        for image in images { try stubImage().write(to: image.url) }
        let record = folder.appendingPathComponent("handled")
        let script = folder.appendingPathComponent("key-handler")
        // Records its key and input; on `r` removes what it was given.
        try Data(
            """
            #!/bin/sh
            echo "key $1 $IMGVIEW_KEY" > '\(record.path)'
            while read -r f; do echo "$f" >> '\(record.path)'; [ "$1" = r ] && rm "$f"; done
            echo "handled $1"
            [ "$1" = x ] && exit 4
            exit 0
            """.utf8
        ).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let presenter = makePresenter(images, actions: BrowserActions(keyHandler: KeyHandler(path: script.path)))
        presenter.start()
        presenter.handle(.toggleMark)
        presenter.handle(.last)
        presenter.handle(.toggleMark)
        presenter.handle(key: .control("x"))
        #expect(notice == "key-handler: press a key (Esc cancels)")
        presenter.handle(key: .escape)
        #expect(notice == "key-handler cancelled")
        #expect(view.last?.images.count == 3, "Esc only cancelled")
        presenter.handle(key: .control("x"))
        presenter.handle(key: .character("c"))
        try await eventually { notice?.hasPrefix("key-handler c") == true && !notice!.contains("running") }
        #expect(notice == "key-handler c: handled c")
        #expect(try String(contentsOf: record, encoding: .utf8) == "key c c\n\(images[0].url.path)\n\(images[2].url.path)\n")
        // A failure says its exit code and its last line.
        presenter.handle(key: .control("x"))
        presenter.handle(key: .character("x"))
        try await eventually { view.last?.notice?.isError == true }
        #expect(notice == "key-handler x failed (exit 4): handled x")
        // Files it removed lose their tabs.
        presenter.handle(key: .control("x"))
        presenter.handle(key: .character("r"))
        try await eventually { view.last?.images.count == 1 }
        #expect(notice == "key-handler r: handled r · 2 files gone")
        #expect(view.last?.images.map(\.name) == ["k1.png"])
        // No script: said where it should be.
        let missing = makePresenter(images, actions: BrowserActions(keyHandler: KeyHandler(path: folder.path + "/none")))
        missing.start()
        missing.handle(key: .control("x"))
        missing.handle(key: .character("a"))
        try await eventually { view.last?.notice?.isError == true }
        #expect(notice == "no key-handler: write an executable script at \(folder.path)/none")
        presenter.shutDown()
        missing.shutDown()
    }
}
