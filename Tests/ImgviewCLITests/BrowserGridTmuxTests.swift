import Foundation
import ImgviewTestSupport
import Testing

/// The browser's grid of thumbnails in the real binary inside tmux: `g`, moving, Enter and `g`
/// keeping the selection, the mouse, `/`, `+`/`-`, a failed cell, and the thumbnails it leaves in
/// the freedesktop.org folders.
@Suite("imgview browse: the grid in tmux", .enabled(if: TmuxSession.isAvailable, "needs tmux (scripts/setup.sh installs it)"))
struct BrowserGridTmuxTests {
    /// A folder of 30 images: copies of the repository's photos under numbered names, and one that is not an image.
    func makeFolder() throws -> URL {
        let folder = try makeTemporaryDirectory()
        let sources = ["01_grace_hopper.jpg", "03_chelsea_cat.png", "04_coffee.png", "09_cups_progressive.jpg"]
        for index in 1...29 {
            let source = sources[index % sources.count]
            let name = String(format: "img%02d.%@", index, (source as NSString).pathExtension)
            try FileManager.default.copyItem(
                at: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/" + source), to: folder.appendingPathComponent(name)
            )
        }
        // A PNG cut short after its header: listed as an image, but no pixel can be read.
        let png = try Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png"))
        try png.prefix(60).write(to: folder.appendingPathComponent("img30.png"))
        return folder
    }

    func withBrowser(in folder: URL, _ body: (TmuxSession) async throws -> Void) async throws {
        let command = TmuxSession.imgviewCommand(
            ["browse", "--mode", "blocks", "."],
            environment: ["IMGVIEW_CACHE_DIR": folder.path + "/.cache/imgview", "XDG_CACHE_HOME": folder.path + "/.cache"])
        let session = try await TmuxSession(columns: 120, rows: 36, command: command, directory: folder)
        do {
            try await body(session)
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }

    /// How many cells across: the names on the row that has the first one.
    func columnsOfGrid(_ screen: String) -> Int? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains("img01.png") && !$0.contains("imgview") }) else {
            return nil
        }
        return line.components(separatedBy: "img").count - 1
    }

    /// The row of the screen (0-based) that contains `text`.
    func row(of text: String, in screen: String) -> Int? {
        // Not the tab strip's row: the grid's.
        screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().firstIndex { $0.contains(text) }
    }

    @Test func theGridShowsThumbnailsMovesInTwoDimensionsAndSharesTheSelection() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withBrowser(in: folder) { session in
            try await session.waitForScreen { $0.contains("source  local file") }
            try await session.send("g")
            // Cells of about 256 px square from the cell size the terminal reports.
            var screen = try await session.waitForScreen { $0.contains("grid · blocks · 256 px · 1–") && $0.contains("of 30") }
            #expect(screen.contains("img01.png"))
            let columns = try #require(columnsOfGrid(screen))
            #expect(columns >= 3)
            // Thumbnails drawn, and no loading dots left.
            screen = try await session.waitForScreen { !$0.contains("·  ") }
            // Once the screen is drawn, its thumbnails are written for file managers (at low priority).
            let large = folder.appendingPathComponent(".cache/thumbnails/large").path
            try await eventually {
                ((try? FileManager.default.contentsOfDirectory(atPath: large)) ?? []).filter { $0.hasSuffix(".png") }.count >= 6
            }
            try await session.send("Right")
            try await session.send("j")
            try await session.send("Down")
            // Two rows down from the second cell.
            let target = String(format: "img%02d", 2 + 2 * columns)
            try await session.send("Enter")
            screen = try await session.waitForScreen { $0.contains("format  ") && $0.contains("┌ \(target)") }
            #expect(screen.contains("preview · blocks"))
            try await session.send("g")
            screen = try await session.waitForScreen { $0.contains("grid · blocks") }
            #expect(screen.contains(target), "g comes back with the same image selected")
            let styled = try await session.styledScreen()
            #expect(styled.contains("\u{1B}[7m") || styled.contains(";7m"), "the selected name in reverse video")
            try await session.send("End")
            screen = try await session.waitForScreen { $0.contains("of 30") && $0.contains("img30.png") }
            // The file that is not an image: a cross in its cell, and why in the status line.
            screen = try await session.waitForScreen { $0.contains("✗") && $0.contains("truncated PNG") }
            try await session.send("Home")
            try await session.waitForScreen { $0.contains("256 px · 1–") }
            try await session.send("/")
            try await session.send("-l", "img22")
            screen = try await session.waitForScreen { $0.contains("img22") && $0.contains("of 30") && !$0.contains("256 px · 1–") }
            try await session.send("Enter")
            try await session.send("-")
            screen = try await session.waitForScreen { $0.contains("192 px") }
            try await session.send("+")
            try await session.send("+")
            try await session.waitForScreen { $0.contains("384 px") }
            try await session.send("q")
        }
        let failed = (try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/.cache/thumbnails/fail/imgview-0.1.0")) ?? []
        #expect(failed.count == 1, "a marker for the file that is not an image")
        // The next run: the marker stands in for reading the file again, and still says why.
        try await withBrowser(in: folder) { session in
            try await session.waitForScreen { $0.contains("source  local file") }
            try await session.send("g")
            try await session.waitForScreen { $0.contains("256 px · 1–") }
            try await session.send("End")
            try await session.waitForScreen { $0.contains("✗") && $0.contains("truncated PNG") && $0.contains("found before") }
            try await session.send("q")
        }
    }

    @Test func aClickSelectsADoubleClickOpensAndTheWheelScrolls() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withBrowser(in: folder) { session in
            try await session.waitForScreen { $0.contains("source  local file") }
            try await session.send("g")
            var screen = try await session.waitForScreen { $0.contains("256 px · 1–") }
            guard let nameRow = row(of: "img03.jpg", in: screen) else {
                Issue.record("no img03 on screen:\n\(screen)")
                return
            }
            let line = String(screen.split(separator: "\n", omittingEmptySubsequences: false)[nameRow])
            let column = line.distance(from: line.startIndex, to: line.range(of: "img03.jpg")!.lowerBound)
            // xterm's SGR reports, 1-based: a press and release on the cell's name.
            let click = "\u{1B}[<0;\(column + 3);\(nameRow + 1)M\u{1B}[<0;\(column + 3);\(nameRow + 1)m"
            try await session.send("-l", click)
            try await session.send("-l", click)
            screen = try await session.waitForScreen { $0.contains("format  ") && $0.contains("┌ img03.jpg") }
            #expect(screen.contains("preview · blocks"), "a double click opens the image")
            try await session.send("g")
            screen = try await session.waitForScreen { $0.contains("grid · blocks") }
            let columns = try #require(columnsOfGrid(screen))
            try await session.send("-l", "\u{1B}[<65;20;10M")
            try await session.send("-l", "\u{1B}[<65;20;10M")
            try await session.send("Enter")
            let target = String(format: "img%02d", 3 + 2 * columns)
            screen = try await session.waitForScreen { $0.contains("format  ") && $0.contains("┌ \(target)") }
            try await session.send("q")
        }
    }
}
