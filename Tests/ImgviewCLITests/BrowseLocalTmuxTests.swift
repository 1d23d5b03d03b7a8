import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

/// The real binary's browser in tmux over what is on the command line — folders, files, a URL —
/// and the navigation, mouse, full-width, zoom and pan that big and local collections need.
@Suite("imgview browse PATH… in tmux", .enabled(if: TmuxSession.isAvailable, "needs tmux (scripts/setup.sh installs it)"))
struct BrowseLocalTmuxTests {
    /// A grey PNG, `width × height`, whose pixels `shade` gives (stored deflate blocks, no compression).
    static func png(width: Int, height: Int, shade: (Int, Int) -> UInt8) -> Data {
        func bigEndian(_ value: UInt32) -> [UInt8] {
            [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let named: [UInt8] = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + named + bigEndian(HugeImageTests.crc32(named))
        }
        var raw: [UInt8] = []
        for y in 0..<height { raw += [0] + (0..<width).map { shade($0, y) } }
        var stream: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let block = raw[offset..<min(raw.count, offset + 65535)]
            offset += block.count
            let length = UInt16(block.count)
            stream += [offset >= raw.count ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            stream += block
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        stream += bigEndian(b << 16 | a)
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", stream) + chunk("IEND", []))
    }

    static let photo = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg")
    static let coffee = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png")

    /// imgview with `arguments` in a tmux pane, in `folder`, with a cache of its own there.
    func withBrowser(
        _ arguments: [String], in folder: URL, columns: Int = 120, rows: Int = 36, _ body: (TmuxSession) async throws -> Void
    ) async throws {
        let command = TmuxSession.imgviewCommand(arguments, environment: ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path])
        let session = try await TmuxSession(columns: columns, rows: rows, command: command, directory: folder)
        do {
            try await body(session)
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }

    /// The column (0-based) where `text` starts on `line`; every character before it is one column wide.
    func column(of text: String, in line: String) -> Int? {
        line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
    }

    /// `IMGVIEW_INPUT_LOG` may name a pipe (here the browser's fd 3, a pipe to `cat`), which once
    /// crashed the browser on its first key; a regular file is appended to, not emptied.
    @Test func theInputLogCanBeAPipeAndAFileIsAppendedTo() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.photo, to: folder.appendingPathComponent("a.jpg"))
        let earlier = folder.appendingPathComponent("earlier")
        try Data("from before\n".utf8).write(to: earlier)
        for (index, log) in ["/proc/self/fd/3", earlier.path].enumerated() {
            let browser = TmuxSession.imgviewCommand(
                ["browse", "a.jpg"],
                environment: ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path, "IMGVIEW_INPUT_LOG": log])
            let command = "{ \(browser) 3>&1 1>/dev/tty; echo \"browser=$?\" >/dev/tty; } | cat > piped-\(index)"
            let session = try await TmuxSession(columns: 100, rows: 30, command: command, directory: folder)
            do {
                _ = try await session.waitForScreen { $0.contains("source  local file") }
                try await session.send("q")
                let screen = try await session.waitForScreen { $0.contains("browser=") }
                #expect(screen.contains("browser=0"), "\(log): \(screen)")
            } catch {
                await session.kill()
                throw error
            }
            await session.kill()
        }
        let piped = try String(contentsOf: folder.appendingPathComponent("piped-0"), encoding: .utf8)
        #expect(piped.hasSuffix("character q\n"), "\(piped)")
        let appended = try String(contentsOf: earlier, encoding: .utf8)
        #expect(appended.hasPrefix("from before\n") && appended.hasSuffix("character q\n"), "\(appended)")
    }

    @Test func aFolderShowsItsImagesInNaturalOrderAndNothingElse() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pictures = folder.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        for name in ["img10.jpg", "img2.jpg", "img1.jpg"] {
            try FileManager.default.copyItem(at: Self.photo, to: pictures.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: Self.coffee, to: pictures.appendingPathComponent("no-extension"))
        try Data("a shopping list".utf8).write(to: pictures.appendingPathComponent("notes.txt"))
        try await withBrowser(["pictures"], in: folder) { session in
            let screen = try await session.waitForScreen { $0.contains("source  local file") }
            #expect(screen.contains("[ img1.jpg ]  img2.jpg    img10.jpg    no-extension "))
            #expect(screen.contains("4 images"))
            #expect(!screen.contains("notes.txt"))
            #expect(screen.contains("format  JPEG 512×600"))
            try await session.send("End")
            try await session.waitForScreen { $0.contains("[ no-extension ]") && $0.contains("format  PNG 600×400") }
            try await session.send("q")
            try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        // Local files are read where they are: the cache holds no copy of them.
        let entries = folder.appendingPathComponent("cache/v1/entries")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: entries.path)) ?? []).isEmpty)
    }

    @Test func twoFilesOnTheCommandLineAreTwoTabs() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withBrowser([Self.coffee.path, Self.photo.path], in: folder) { session in
            let screen = try await session.waitForScreen { $0.contains("format  PNG 600×400") }
            #expect(screen.contains("[ 04_coffee.png ]  01_grace_hopper.jpg "))
            #expect(screen.contains("2 images"))
            try await session.send("Right")
            try await session.waitForScreen { $0.contains("[ 01_grace_hopper.jpg ]") && $0.contains("format  JPEG 512×600") }
        }
    }

    @Test func aURLOnTheCommandLineIsFetchedThroughTheCaches() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await LoopbackServer.start()
        try await stopping(server) {
            server.publish(.data(try Data(contentsOf: Self.photo), contentType: "image/jpeg"), at: "/photos/hopper.jpg")
            let url = server.url(for: "/photos/hopper.jpg").absoluteString
            try await withBrowser([url], in: folder) { session in
                let screen = try await session.waitForScreen { $0.contains("source  network") }
                #expect(screen.contains("[ hopper.jpg ]") && screen.contains("1 image\n"))
                #expect(screen.contains("format  JPEG 512×600"))
            }
            #expect(server.requests(for: "/photos/hopper.jpg").count == 1)
        }
    }

    /// Every new format in one folder: each tab says what it is, and a TIFF of three pages turns them with `]` and `[`.
    @Test func theNewFormatsBrowseAndATIFFTurnsItsPages() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = ["anim.jxl", "anim.png", "hopper.ico", "pages.tif", "q.qoi", "q.svg", "thumb.heic"]
        for name in names { try FileManager.default.copyItem(at: Fixtures.url(name), to: folder.appendingPathComponent(name)) }
        try await withBrowser(["."], in: folder) { session in
            let formats = [
                "JPEG XL 16×12", "PNG 16×12", "ICO 48×48", "TIFF 16×12", "QOI 16×12", "SVG 16×12 (scalable)", "HEIC 64×75",
            ]
            for (index, format) in formats.enumerated() {
                try await session.send("\(index + 1)")
                let screen = try await session.waitForScreen { $0.contains("[ \(names[index]) ]") && $0.contains("format  \(format)") }
                #expect(!screen.contains("failed"), "\(names[index])")
            }
            try await session.send("4")
            try await session.waitForScreen { $0.contains("page    1 of 3  [ ]") }
            try await session.send("]")
            try await session.waitForScreen { $0.contains("page    2 of 3  [ ]") }
            try await session.send("]", "]")
            try await session.waitForScreen { $0.contains("page    3 of 3  [ ]") && $0.contains("the last page (3 of 3)") }
            try await session.send("[")
            try await session.waitForScreen { $0.contains("page    2 of 3  [ ]") }
        }
    }

    @Test func aFolderWithNoImagesIsAnErrorBeforeTheScreenIsTaken() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("text".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try await withBrowser(["."], in: folder) { session in
            let screen = try await session.waitForScreen { $0.contains("EXIT=") }
            #expect(screen.contains("imgview: no images in ."))
            #expect(screen.contains("EXIT=4"))
        }
    }

    /// A catalog of 40 small images, photo1 … photo40 (file URLs).
    func fortyImageCatalog(in folder: URL) throws -> String {
        var entries: [String] = []
        for index in 1...40 {
            let file = folder.appendingPathComponent("p\(index).png")
            try Self.png(width: 8, height: 8) { x, _ in UInt8(x * 30) }.write(to: file)
            entries.append(#"{"name": "photo\#(index)", "url": "\#(file.absoluteString)"}"#)
        }
        let catalog = folder.appendingPathComponent("catalog.json")
        try Data(#"{"images": [\#(entries.joined(separator: ", "))]}"#.utf8).write(to: catalog)
        return catalog.path
    }

    @Test func homeEndPagesAndFindInAFortyImageCatalog() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = try fortyImageCatalog(in: folder)
        try await withBrowser(["--catalog", catalog], in: folder) { session in
            try await session.waitForScreen { $0.contains("[ photo1 ]") && $0.contains("format  PNG 8×8") }
            try await session.send("End")
            var screen = try await session.waitForScreen { $0.contains("[ photo40 ]") && $0.contains("┌ photo40 ") }
            #expect(screen.contains("40 images") && screen.contains("‹") && !screen.contains("›"))
            try await session.send("Home")
            try await session.waitForScreen { $0.contains("[ photo1 ]") && $0.contains("┌ photo1 ") }
            try await session.send("PageDown")
            screen = try await session.waitForScreen { !$0.contains("[ photo1 ]") && $0.contains("format  PNG 8×8") }
            let strip = String(screen.split(separator: "\n")[0])
            #expect(strip.contains("‹"), "a page on, the first tabs have scrolled away: \(strip)")
            // Find as you type: the selection follows, Enter keeps it.
            try await session.send("/")
            try await session.send("-l", "to33")
            screen = try await session.waitForScreen { $0.contains("[ photo33 ]") && $0.contains(" /to33") }
            try await session.send("Enter")
            try await session.waitForScreen { $0.contains("┌ photo33 ") && $0.contains("q quit") }
            // Esc puts back where the search started.
            try await session.send("/")
            try await session.send("-l", "o7")
            try await session.waitForScreen { $0.contains("[ photo7 ]") }
            try await session.send("Escape")
            try await session.waitForScreen { $0.contains("[ photo33 ]") && $0.contains("q quit") }
            // Tab numbers past 9.
            try await session.send("1", "2")
            try await session.waitForScreen { $0.contains("[ photo12 ]") && $0.contains("┌ photo12 ") }
        }
    }

    @Test func aMouseClickOnTheThirdTabSelectsItAndTheWheelMoves() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = try fortyImageCatalog(in: folder)
        try await withBrowser(["--catalog", catalog], in: folder) { session in
            let screen = try await session.waitForScreen { $0.contains("[ photo1 ]") && $0.contains("format  PNG 8×8") }
            let strip = String(screen.split(separator: "\n")[0])
            let third = try #require(column(of: "  photo3  ", in: strip))
            // xterm's SGR report of a left press at a 1-based column and row.
            try await session.send("-l", "\u{1B}[<0;\(third + 4);1M\u{1B}[<0;\(third + 4);1m")
            try await session.waitForScreen { $0.contains("[ photo3 ]") && $0.contains("┌ photo3 ") }
            // The wheel over the preview: down is the next tab.
            try await session.send("-l", "\u{1B}[<65;20;10M")
            try await session.waitForScreen { $0.contains("[ photo4 ]") && $0.contains("┌ photo4 ") }
            try await session.send("-l", "\u{1B}[<64;20;1M")
            try await session.waitForScreen { $0.contains("[ photo3 ]") }
            // A click on a key hint does what the key does.
            let hints = try await session.screen().split(separator: "\n").last.map(String.init) ?? ""
            let cache = try #require(column(of: "c cache", in: hints))
            try await session.send("-l", "\u{1B}[<0;\(cache + 1);36M")
            try await session.waitForScreen { $0.contains("┌ disk cache ") }
        }
    }

    @Test func fullWidthZoomAndPanChangeThePreviewAsExpected() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Dark on the left half, light on the right: where the view is shows in which characters it draws.
        try Self.png(width: 400, height: 200) { x, _ in x < 200 ? 0 : 255 }.write(to: folder.appendingPathComponent("halves.png"))
        try await withBrowser(["--mode", "ascii", "halves.png"], in: folder) { session in
            try await session.waitForScreen { $0.contains("format  PNG 400×200") }
            try await session.send("f")
            // Rendered again for the whole width: the light half reaches the pane's right edge.
            let fitted = try await settled(session) { screen in
                screen.contains("preview · ascii · halves.png ") && preview(screen).contains { $0.last.map { $0 != " " } ?? false }
            }
            #expect(!fitted.contains("format  PNG"), "the metadata pane is hidden")
            let fit = preview(fitted)
            #expect(fit.count == 32 && fit.allSatisfy { $0.count == 118 }, "\(fit.count) rows: \(fit.map(\.count))")
            #expect(fit.joined().contains(" ") && fit.joined().contains { $0 != " " }, "both halves show")
            try await session.send("+", "+")
            let zoomed = try await session.waitForScreen { $0.contains("· ×2.3 ") && preview($0) != fit }
            #expect(zoomed.contains("+ - zoom ×2.3  H J K L pan  0 fit"))
            // Panned to the right edge only the light half shows, to the left edge only the dark.
            try await session.send("L", "L", "L", "L")
            let right = try await session.waitForScreen { screen in preview(screen).allSatisfy { !$0.contains(" ") } }
            #expect(Set(preview(right).joined()).count == 1)
            try await session.send("H", "H", "H", "H", "H", "H", "H", "H")
            try await session.waitForScreen { screen in preview(screen).allSatisfy { $0.allSatisfy { $0 == " " } } }
            try await session.send("0")
            try await session.waitForScreen { $0.contains("preview · ascii · halves.png ─") && preview($0) == fit }
            try await session.send("f")
            try await session.waitForScreen { $0.contains("format  PNG 400×200") }
        }
    }

    /// The screen once `condition` holds and nothing has changed for half a second, so a frame
    /// still being drawn is not taken for the preview.
    func settled(_ session: TmuxSession, _ condition: @escaping (String) -> Bool) async throws -> String {
        var last = try await session.waitForScreen(condition)
        while true {
            try await Task.sleep(for: .milliseconds(500))
            let now = try await session.screen()
            if now == last { return now }
            last = try await session.waitForScreen(condition)
        }
    }

    /// The rows inside the preview box, between its borders.
    func preview(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).prefix { !$0.hasPrefix("└") }.map { line in
            String(line.dropFirst().prefix { $0 != "│" })
        }
    }

    @Test func ctrlZSuspendsAndFgRedraws() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.photo, to: folder.appendingPathComponent("hopper.jpg"))
        let session = try await TmuxSession(columns: 100, rows: 30, command: "PS1='$ ' bash --norc --noprofile -i", directory: folder)
        do {
            try await session.send(
                "-l", TmuxSession.imgviewCommand(["hopper.jpg"], environment: ["IMGVIEW_CACHE_DIR": folder.path + "/cache"]))
            try await session.send("Enter")
            try await session.waitForScreen { $0.contains("format  JPEG 512×600") }
            try await session.send("C-z")
            try await session.waitForScreen { $0.contains("Stopped") }
            #expect(try await session.format("#{alternate_on}") == "0")
            try await session.send("-l", "fg")
            try await session.send("Enter")
            // Redrawn whole: the status line, drawn last, is back too.
            try await session.waitForScreen {
                $0.contains("format  JPEG 512×600") && $0.contains("[ hopper.jpg ]") && $0.contains("q quit")
            }
            try await session.send("q")
            try await session.waitForScreen { $0.contains("$ ") && !$0.contains("[ hopper.jpg ]") }
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }
}
