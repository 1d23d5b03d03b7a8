import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging

/// kitty images inside tmux through Unicode placeholders, with a client attached whose terminal
/// is played on a pty (`Terminals/fake_outer_terminal.py`): it answers as kitty of a given version
/// would and logs every byte tmux sends it. No terminal here draws placeholders (Debian's kitty is
/// 0.26.5), so what is checked is what tmux keeps and sends on: the image sent once with a virtual
/// placement, its placeholder cells in the pane where the image goes (tmux's own copy, read with
/// `capture-pane -e`), kept by tmux across a window switch, gone after a tab switch and a quit;
/// and a kitty without placeholders still gets the image placed through passthrough.
@Suite("kitty Unicode placeholders inside tmux", .serialized, .enabled(if: TmuxSession.isAvailable))
struct TmuxPlaceholderTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Terminals/fake_outer_terminal.py")
    static let cat = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/03_chelsea_cat.png").path
    static let hopper = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg").path

    /// A tmux session with a client in the played terminal, running `command` once it is attached.
    final class Outer {
        let session: TmuxSession
        let process: Process
        let folder: URL
        var log: URL { folder.appendingPathComponent("outer.log") }

        init(version: String, command: String) async throws {
            folder = try makeTemporaryDirectory()
            session = try await TmuxSession(
                columns: 100, rows: 30,
                command: "tmux set -g allow-passthrough on; "
                    + "while [ \"$(tmux display -p '#{session_attached}')\" = 0 ]; do sleep 0.1; done; sleep 0.3; " + command)
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments =
                [TmuxPlaceholderTests.script.path, version, "100", "31", folder.appendingPathComponent("outer.log").path, "--"]
                + ["/usr/bin/tmux", "-L", session.socket, "-f", "/dev/null", "attach", "-t", session.name]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// What tmux sent the terminal so far.
        func bytes() -> [UInt8] {
            (try? [UInt8](Data(contentsOf: log))) ?? []
        }

        /// The kitty commands' keys in what tmux sent (`a=T,U=1,i=…`), in order.
        func kittyCommands() -> [String] {
            let text = String(decoding: bytes(), as: UTF8.self)
            return text.components(separatedBy: "\u{1B}_G").dropFirst().map { String($0.prefix { $0 != ";" && $0 != "\u{1B}" }) }
        }

        /// The virtual placements sent: id, columns, rows.
        func virtualPlacements() -> [(id: UInt32, columns: Int, rows: Int)] {
            kittyCommands().filter { $0.hasPrefix("a=T,U=1,") }.compactMap { keys in
                let fields = Dictionary(
                    keys.split(separator: ",").compactMap { part -> (String, String)? in
                        let pair = part.split(separator: "=", maxSplits: 1)
                        return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
                    }, uniquingKeysWith: { first, _ in first })
                guard let id = fields["i"].flatMap({ UInt32($0) }), let columns = fields["c"].flatMap({ Int($0) }),
                    let rows = fields["r"].flatMap({ Int($0) })
                else { return nil }
                return (id, columns, rows)
            }
        }

        func stop() async {
            await session.kill()
            let deadline = ContinuousClock.now + .seconds(5)
            while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The pane's lines that hold placeholder cells: their index, the column of their first
    /// cell, and the cells (each U+10EEEE and its diacritics), from a plain capture.
    static func placeholderLines(_ screen: String) -> [(line: Int, column: Int, cells: [Character])] {
        screen.components(separatedBy: "\n").enumerated().compactMap { index, line in
            let characters = Array(line)
            guard let first = characters.firstIndex(where: { $0.unicodeScalars.first == KittyPlaceholders.character }) else {
                return nil
            }
            // Every character before it is one cell wide (box lines, spaces).
            let cells = characters[first...].prefix { $0.unicodeScalars.first == KittyPlaceholders.character }
            return (index, first, Array(cells))
        }
    }

    /// Whether `lines` are the placeholder text of image `id`, `columns × rows` cells: row r's cell
    /// c carries the diacritics for r, c and the id's highest byte.
    static func arePlaceholders(_ lines: [(line: Int, column: Int, cells: [Character])], id: UInt32, columns: Int, rows: Int) -> Bool {
        guard lines.count == rows else { return false }
        return lines.enumerated().allSatisfy { row, line in
            line.cells.count == columns
                && line.cells.enumerated().allSatisfy { column, cell in
                    Array(cell.unicodeScalars) == [
                        KittyPlaceholders.character, KittyPlaceholders.diacritic(row), KittyPlaceholders.diacritic(column),
                        KittyPlaceholders.diacritic(Int(id >> 24)),
                    ]
                }
        }
    }

    /// Whether `text` has `part` in its bytes (a placeholder and its diacritics are one Character,
    /// so a search by Characters for the placeholder alone finds nothing).
    static func holds(_ text: String, _ part: String) -> Bool {
        Data(text.utf8).range(of: Data(part.utf8)) != nil
    }

    /// Runs `body` with a played terminal answering as `version` and `command` in the pane, then
    /// stops both, whether or not it threw.
    func withOuter(_ version: String, command: String, _ body: (Outer) async throws -> Void) async throws {
        let outer = try await Outer(version: version, command: command)
        do {
            try await body(outer)
        } catch {
            await outer.stop()
            throw error
        }
        await outer.stop()
    }

    /// Waits until `condition` holds of the session's plain screen; returns it.
    @discardableResult
    func wait(
        _ outer: Outer, target: String = "browser", timeout: Duration = .seconds(30), _ condition: (String) -> Bool
    ) async throws
        -> String
    {
        let deadline = ContinuousClock.now + timeout
        var screen = ""
        while ContinuousClock.now < deadline {
            screen = try await outer.session.command("capture-pane", "-p", "-t", target)
            if condition(screen) { return screen }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the pane did not get there; it shows:\n\(screen)\nkitty commands: \(outer.kittyCommands())")
        throw TmuxError(message: "timed out")
    }

    @Test func showPrintsThePlaceholderTextAndThePromptFollowsIt() async throws {
        let show = TmuxSession.imgviewCommand(["show", Self.cat, "--size", "20x6"])
        try await withOuter("kitty(0.35.2)", command: "echo BEFORE; \(show); echo AFTER") { outer in
            let screen = try await wait(outer) { $0.contains("EXIT=") }
            let placements = outer.virtualPlacements()
            try #require(placements.count == 1, "kitty commands: \(outer.kittyCommands())")
            let (id, columns, rows) = placements[0]
            #expect(id & 0x00FF_FF00 == 0 && id & 0xFF >= 16)
            let lines = Self.placeholderLines(screen)
            #expect(Self.arePlaceholders(lines, id: id, columns: columns, rows: rows), "\(screen)")
            let text = screen.components(separatedBy: "\n")
            #expect(lines.first?.line == 1 && lines.first?.column == 0 && text[0] == "BEFORE", "\(screen)")
            #expect(text[1 + rows] == "AFTER", "the prompt after the image's rows: \(screen)")
            // The id's low byte is the cells' 256-colour foreground, as tmux keeps it.
            let styled = try await outer.session.command("capture-pane", "-p", "-e", "-t", "browser")
            #expect(Self.holds(styled, "\u{1B}[38;5;\(id & 0xFF)m\u{10EEEE}"), "\(styled)")
            // Sent with no position and quiet, the query's question with a virtual placement before it.
            #expect(outer.kittyCommands().contains("i=32,s=1,v=1,a=q,t=d,f=24,U=1"))
            #expect(!outer.kittyCommands().contains { $0.hasPrefix("a=T") && $0.contains("C=1") })
        }
    }

    @Test func kittyWithoutPlaceholdersStillGetsItsImagePlacedThroughPassthrough() async throws {
        let show = TmuxSession.imgviewCommand(["show", Self.cat, "--size", "20x6"])
        try await withOuter("kitty(0.26.5)", command: "\(show); echo AFTER") { outer in
            let screen = try await wait(outer) { $0.contains("EXIT=") }
            #expect(Self.placeholderLines(screen).isEmpty, "\(screen)")
            #expect(outer.virtualPlacements().isEmpty)
            #expect(outer.kittyCommands().contains { $0.hasPrefix("a=T,i=1,q=2,f=24") }, "\(outer.kittyCommands())")
            #expect(!outer.bytes().contains(0xF4), "no placeholder text reached the terminal")
        }
    }

    @Test func theBrowsersPlaceholdersAreInThePaneKeptByTmuxAndGoneAfterATabSwitchAndQuit() async throws {
        let browse = TmuxSession.imgviewCommand(["browse", Self.cat, Self.hopper])
        try await withOuter("kitty(0.35.2)", command: browse) { outer in
            // The cat's text for the last image sent (a resize as the client attaches may send it twice).
            let shows = { (screen: String, placement: (id: UInt32, columns: Int, rows: Int)?) in
                placement.map { Self.arePlaceholders(Self.placeholderLines(screen), id: $0.id, columns: $0.columns, rows: $0.rows) }
                    ?? false
            }
            let first = try await wait(outer) { $0.contains("[ 03_chelsea_cat.png ]") && shows($0, outer.virtualPlacements().last) }
            let cat = try #require(outer.virtualPlacements().last)
            let lines = Self.placeholderLines(first)
            // Inside the preview's box: below the tab strip and the box's top, right of its left side.
            let text = first.components(separatedBy: "\n")
            #expect(lines.allSatisfy { $0.line >= 2 && $0.column > 0 && text[$0.line].hasPrefix("│") }, "\(first)")

            // A tab switch: the first image's data deleted by its id, its text replaced by the second's (another shape).
            let deletesBefore = outer.kittyCommands().filter { $0 == "a=d,d=I,i=\(cat.id),q=2" }.count
            try await outer.session.send("Right")
            let switched = try await wait(outer) { screen in
                guard let last = outer.virtualPlacements().last, (last.columns, last.rows) != (cat.columns, cat.rows) else { return false }
                return shows(screen, last)
            }
            let hopper = try #require(outer.virtualPlacements().last)
            #expect(outer.kittyCommands().filter { $0 == "a=d,d=I,i=\(cat.id),q=2" }.count > deletesBefore, "\(outer.kittyCommands())")
            #expect(Self.placeholderLines(switched).count == hopper.rows)

            // Another window and back: tmux keeps the text and draws it again itself; nothing is sent again.
            try await outer.session.command("new-window", "-t", "browser")
            try await wait(outer) { Self.placeholderLines($0).isEmpty }
            let sent = outer.bytes().count
            let transmissions = outer.virtualPlacements().count
            try await outer.session.command("select-window", "-t", "browser:0")
            let back = try await wait(outer, target: "browser:0") { !Self.placeholderLines($0).isEmpty }
            #expect(Self.arePlaceholders(Self.placeholderLines(back), id: hopper.id, columns: hopper.columns, rows: hopper.rows), "\(back)")
            let redrawDeadline = ContinuousClock.now + .seconds(5)
            while !outer.bytes().dropFirst(sent).contains(0xF4), ContinuousClock.now < redrawDeadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(outer.bytes().dropFirst(sent).contains(0xF4), "tmux wrote the placeholder text to the terminal again")
            #expect(outer.virtualPlacements().count == transmissions, "no image sent again: \(outer.kittyCommands())")

            // Quit: no placeholder left, the image's data deleted.
            try await outer.session.command("send-keys", "-t", "browser:0", "q")
            let quit = try await wait(outer, target: "browser:0") { $0.contains("EXIT=") }
            #expect(Self.placeholderLines(quit).isEmpty, "\(quit)")
            #expect(outer.kittyCommands().filter { $0 == "a=d,d=I,i=\(hopper.id),q=2" }.count >= 1, "\(outer.kittyCommands())")
        }
    }

    @Test func theGridShowsEachImageByItsOwnPlaceholders() async throws {
        let browse = TmuxSession.imgviewCommand(["browse", Self.cat, Self.hopper])
        try await withOuter("kitty(0.35.2)", command: browse) { outer in
            try await wait(outer) { !Self.placeholderLines($0).isEmpty }
            let pane = try #require(outer.virtualPlacements().first?.id)
            try await outer.session.send("g")
            // Two images, two ids, each its own rows of text side by side.
            let gridIDs = { Set(outer.virtualPlacements().map(\.id)).subtracting([pane]) }
            try await wait(outer) { _ in gridIDs().count == 2 }
            let ids = gridIDs().compactMap { id in outer.virtualPlacements().last { $0.id == id } }
            let colour = { (id: UInt32) in "\u{1B}[38;5;\(id & 0xFF)m\u{10EEEE}" }
            var colours = ""
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                colours = try await outer.session.command("capture-pane", "-p", "-e", "-t", "browser")
                if ids.allSatisfy({ Self.holds(colours, colour($0.id)) }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            try #require(ids.count == 2)
            // The grid's two cells are two ids counted on one after the other by this process.
            let number = { (id: UInt32) in Int(id >> 24) * 240 + Int(id & 0xFF) - 16 }
            let apart = (number(ids[0].id) - number(ids[1].id) + KittyPlaceholders.idCount) % KittyPlaceholders.idCount
            #expect(ids[0].id != ids[1].id && (apart == 1 || apart == KittyPlaceholders.idCount - 1), "\(ids)")
            for placement in ids { #expect(Self.holds(colours, colour(placement.id)), "\(colours)") }
            try await outer.session.send("q")
            let quit = try await wait(outer) { $0.contains("EXIT=") }
            #expect(Self.placeholderLines(quit).isEmpty)
        }
    }

    @Test func anAnimationAndAContactSheetShowTheirImagesByPlaceholdersToo() async throws {
        let animation = TmuxSession.imgviewCommand(["show", Fixtures.path("slideshow.gif"), "--loops", "1", "--size", "20x6"])
        let sheet = TmuxSession.imgviewCommand(["show", "--grid", "2x1", Self.cat, Self.hopper, "--size", "60x10"])
        try await withOuter("kitty(0.35.2)", command: "\(animation); echo AFTER; \(sheet); echo END") { outer in
            let screen = try await wait(outer) { $0.contains("EXIT=") }
            let placements = outer.virtualPlacements()
            try #require(placements.count >= 4, "kitty commands: \(outer.kittyCommands())")
            // Every frame under one id, its text written once in the reserved rows, the prompt after them.
            let frames = placements.prefix { $0.id == placements[0].id }
            #expect(frames.count >= 2 && frames.allSatisfy { $0.columns == frames[0].columns && $0.rows == frames[0].rows })
            let lines = Self.placeholderLines(screen)
            let text = screen.components(separatedBy: "\n")
            #expect(text[frames[0].rows] == "AFTER", "\(screen)")
            #expect(
                Self.arePlaceholders(
                    Array(lines.prefix(frames[0].rows)), id: frames[0].id, columns: frames[0].columns, rows: frames[0].rows))
            // The sheet: two images side by side, each its own id, before the line after the sheet.
            let cells = Array(placements.dropFirst(frames.count))
            try #require(cells.count == 2, "the animation's id is not the sheet's: \(placements)")
            #expect(cells[0].id != cells[1].id, "\(cells)")
            let styled = try await outer.session.command("capture-pane", "-p", "-e", "-t", "browser")
            let sideBySide = styled.components(separatedBy: "\n").contains { line in
                cells.allSatisfy { Self.holds(line, "\u{1B}[38;5;\($0.id & 0xFF)m\u{10EEEE}") }
            }
            #expect(sideBySide, "\(styled)")
            #expect(text.firstIndex(of: "END").map { $0 > frames[0].rows + max(cells[0].rows, cells[1].rows) } == true, "\(screen)")
        }
    }

    /// Every row, column and id diacritic stays on its cell in tmux's copy of the pane (tmux joins
    /// a combining mark to the cell before only when its width table says zero).
    @Test func tmuxKeepsEveryDiacriticOnItsCell() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cells.txt")
        let lines = stride(from: 0, to: KittyPlaceholders.largestSpan, by: 60).map { start in
            String(
                String.UnicodeScalarView(
                    (start..<min(start + 60, KittyPlaceholders.largestSpan)).flatMap { number -> [Unicode.Scalar] in
                        let mark = KittyPlaceholders.diacritic(number)
                        return [KittyPlaceholders.character, mark, mark, mark]
                    }))
        }
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let session = try await TmuxSession(columns: 100, rows: 40, command: "cat \(TmuxSession.shellQuoted(file.path))")
        defer { Task { await session.kill() } }
        let screen = try await session.waitForScreen { $0.contains("EXIT=") }
        let shown = screen.components(separatedBy: "\n").prefix(lines.count)
        #expect(Array(shown) == lines)
        #expect(shown.map { $0.unicodeScalars.filter { $0 == KittyPlaceholders.character }.count } == [60, 60, 60, 60, 57])
    }
}
