import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

/// The browser as a daily tool, the real binary in tmux: marks, each action on them (the
/// clipboard through tmux's buffer, the trash as trash-cli sees it, the opener, the
/// key-handler, saving), the slideshow, the orders, and keys from a config file.
@Suite(
    "imgview browse: marks, actions, slideshow, order, keys (tmux)", .serialized,
    .enabled(if: TmuxSession.isAvailable, "needs tmux (scripts/setup.sh installs it)"))
struct BrowserDailyTmuxTests {
    /// A folder for one test: `pics/` with `names` (grey PNGs, each `index + 1` times as wide as
    /// the first, so sizes grow with the name), and a home of its own for the trash and the config.
    struct Place {
        let root: URL
        var pictures: URL { root.appendingPathComponent("pics") }
        var home: URL { root.appendingPathComponent("home") }
        var dataHome: URL { home.appendingPathComponent(".local/share") }
        var configHome: URL { home.appendingPathComponent(".config") }

        func picture(_ name: String) -> URL { pictures.appendingPathComponent(name) }

        /// What the browser and trash-cli run with: this home, this data home, this config home.
        var environment: [String: String] {
            [
                "HOME": home.path, "XDG_DATA_HOME": dataHome.path, "XDG_CONFIG_HOME": configHome.path,
                "IMGVIEW_CACHE_DIR": root.appendingPathComponent("cache").path, "DISPLAY": "", "WAYLAND_DISPLAY": "",
            ]
        }
    }

    func makePlace(_ names: [String] = ["a.png", "b.png", "c.png"]) throws -> Place {
        let place = Place(root: try makeTemporaryDirectory())
        try FileManager.default.createDirectory(at: place.pictures, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: place.configHome.appendingPathComponent("imgview"), withIntermediateDirectories: true)
        for (index, name) in names.enumerated() {
            try BrowseLocalTmuxTests.png(width: 40 * (index + 1), height: 30) { x, y in UInt8((x * 3 + y * 5 + index * 40) & 0xFF) }
                .write(to: place.picture(name))
        }
        return place
    }

    /// imgview with `arguments` in a tmux pane in the place's folder; `prepare` runs on the tmux
    /// server before the browser starts (its options).
    /// A 1 MB tmpfs mounted at `volume` in `place`: another volume than the home trash's.
    func mountVolume(in place: Place) throws -> URL {
        let volume = place.root.appendingPathComponent("volume")
        try FileManager.default.createDirectory(at: volume, withIntermediateDirectories: true)
        try SystemCommands.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", volume.path])
        return volume
    }

    func withBrowser(
        _ arguments: [String], in place: Place, environment: [String: String] = [:], serverOptions: [[String]] = [],
        _ body: (TmuxSession) async throws -> Void
    ) async throws {
        let command = TmuxSession.imgviewCommand(arguments, environment: place.environment.merging(environment) { $1 })
        // The pane's program waits for the server's options to be set before it starts.
        let ready = place.root.appendingPathComponent("ready")
        let session = try await TmuxSession(
            columns: 120, rows: 30, command: "while [ ! -e \(TmuxSession.shellQuoted(ready.path)) ]; do sleep 0.05; done; " + command,
            directory: place.root)
        do {
            for option in serverOptions { _ = try await session.command(option) }
            try Data().write(to: ready)
            _ = try await session.waitForScreen { $0.contains("source  local file") }
            try await body(session)
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }

    /// Runs `command` with /bin/sh in the place's environment (trash-cli), returning its output.
    func shell(_ command: String, in place: Place) async throws -> ImgviewProcess.Result {
        try await ImgviewProcess.run(["-c", command], executable: URL(fileURLWithPath: "/bin/sh"), environment: place.environment)
    }

    static var hasTrashCLI: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/trash-list") }

    // MARK: Marks and the clipboard

    @Test func marksShowInTheStripAndCopyFillsTmuxsBuffer() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        try await withBrowser(["pics"], in: place, serverOptions: [["set-option", "-s", "set-clipboard", "on"]]) { session in
            try await session.send("t", "Right", "Right", "t")
            var screen = try await session.waitForScreen { $0.contains("marked c.png · 2 marked") }
            #expect(screen.contains(" •a.png  ") && screen.contains("[•c.png ]"))
            try await session.send("y")
            screen = try await session.waitForScreen { $0.contains("copied 2 paths to the clipboard (tmux)") }
            let buffer = try await session.command("show-buffer")
            #expect(buffer == place.picture("a.png").path + "\n" + place.picture("c.png").path)
            // Invert: b alone, copied as the only path.
            try await session.send("*")
            _ = try await session.waitForScreen { $0.contains("marks inverted · 1 marked") }
            try await session.send("y")
            _ = try await session.waitForScreen { $0.contains("copied the path of b.png to the clipboard (tmux)") }
            #expect(try await session.command("show-buffer") == place.picture("b.png").path)
            // tmux that ignores programs' clipboard requests: said so.
            try await session.command("set-option", "-s", "set-clipboard", "external")
            try await session.send("y")
            screen = try await session.waitForScreen { $0.contains("tmux ignores clipboard requests") }
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func markAllMarksEveryImageAgainNoneAndTheGridShowsTheMarks() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        try await withBrowser(["pics"], in: place) { session in
            try await session.send("T")
            var screen = try await session.waitForScreen { $0.contains("marked all 3 images") }
            #expect(screen.contains("[•a.png ] •b.png   •c.png ") && screen.contains("3 marked"), "\(screen)")
            try await session.send("T")
            screen = try await session.waitForScreen { $0.contains("no image marked") }
            #expect(screen.contains("[ a.png ]  b.png    c.png ") && !screen.contains("marked ·"), "\(screen)")
            // The grid puts a check before a marked image's name.
            try await session.send("Right", "t", "g")
            screen = try await session.waitForScreen { $0.contains("grid ·") && $0.contains("b.png") }
            #expect(screen.contains("✓ b.png") && !screen.contains("✓ a.png") && !screen.contains("✓ c.png"), "\(screen)")
            #expect(screen.contains("1 marked"))
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    // MARK: The trash

    @Test(.enabled(if: BrowserDailyTmuxTests.hasTrashCLI, "needs trash-cli (scripts/setup.sh installs it)"))
    func trashCLIListsAndRestoresWhatWasTrashedAndUndoPutsBackTheRest() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        try await withBrowser(["pics"], in: place) { session in
            try await session.send("t", "Right", "t")
            _ = try await session.waitForScreen { $0.contains("2 marked") }
            try await session.send("D")
            let screen = try await session.waitForScreen { $0.contains("moved 2 images to the trash · u undoes") }
            #expect(screen.contains("[ c.png ]") && screen.contains("1 image"))
            #expect(!FileManager.default.fileExists(atPath: place.picture("a.png").path))
            let info = try String(
                contentsOf: place.dataHome.appendingPathComponent("Trash/info/a.png.trashinfo"), encoding: .utf8)
            #expect(info.hasPrefix("[Trash Info]\nPath=\(place.picture("a.png").path)\nDeletionDate="))
            // trash-cli sees both, and restores one.
            let listed = try await shell("trash-list", in: place)
            #expect(listed.status == 0)
            #expect(listed.stdout.contains(" " + place.picture("a.png").path + "\n"))
            #expect(listed.stdout.contains(" " + place.picture("b.png").path + "\n"))
            let restored = try await shell("echo 0 | trash-restore \(TmuxSession.shellQuoted(place.picture("b.png").path))", in: place)
            #expect(restored.status == 0, "\(restored.stdout) \(restored.stderr)")
            #expect(FileManager.default.fileExists(atPath: place.picture("b.png").path))
            // Undo puts back what is still in the trash; what trash-cli took back is said, and left as it is.
            try await session.send("u")
            _ = try await session.waitForScreen { $0.contains("could not put b.png back") && $0.contains("(1 put back)") }
            #expect(FileManager.default.fileExists(atPath: place.picture("a.png").path))
            #expect(try await shell("trash-list", in: place).stdout.isEmpty)
            // a came back marked, as it went: the one marked image goes, and undo brings it back, marked.
            try await session.send("Home", "D")
            _ = try await session.waitForScreen { $0.contains("moved a.png to the trash") }
            try await session.send("u")
            let back = try await session.waitForScreen { $0.contains("put back a.png") }
            #expect(back.contains("[•a.png ]  c.png "))
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test(.enabled(if: SystemCommands.canMount() && BrowserDailyTmuxTests.hasTrashCLI, "needs to mount a tmpfs, and trash-cli"))
    func aFileOnAnotherVolumeGoesToThatVolumesTrashWhichTrashCLIReads() async throws {
        let place = try makePlace([])
        let volume = try mountVolume(in: place)
        defer {
            try? SystemCommands.run("/bin/umount", [volume.path])
            try? FileManager.default.removeItem(at: place.root)
        }
        let file = volume.appendingPathComponent("v w.png")
        try BrowseLocalTmuxTests.png(width: 30, height: 20) { x, _ in UInt8(x * 8) }.write(to: file)
        let command = TmuxSession.imgviewCommand(["volume"], environment: place.environment)
        let session = try await TmuxSession(columns: 120, rows: 30, command: command, directory: place.root)
        do {
            _ = try await session.waitForScreen { $0.contains("source  local file") }
            try await session.send("D")
            _ = try await session.waitForScreen { $0.contains("moved v w.png to the trash") }
            // The volume's own trash, the path relative to its top; nothing in the home trash.
            let info = try String(contentsOfFile: volume.path + "/.Trash-\(getuid())/info/v w.png.trashinfo", encoding: .utf8)
            #expect(info.hasPrefix("[Trash Info]\nPath=v%20w.png\nDeletionDate="))
            #expect(!FileManager.default.fileExists(atPath: place.dataHome.appendingPathComponent("Trash").path))
            let listed = try await shell("trash-list", in: place)
            #expect(listed.stdout.hasSuffix(" " + file.path + "\n"), "\(listed.stdout) \(listed.stderr)")
            let restored = try await shell("echo 0 | trash-restore \(TmuxSession.shellQuoted(file.path))", in: place)
            #expect(restored.status == 0 && FileManager.default.fileExists(atPath: file.path), "\(restored.stdout) \(restored.stderr)")
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }

    @Test(.enabled(if: SystemCommands.canUseChattr(), "needs root and chattr"))
    func aFileInAReadOnlyFolderIsReportedAndLeftInPlace() async throws {
        let place = try makePlace()
        defer {
            try? SystemCommands.run("/usr/bin/chattr", ["-i", place.pictures.path])
            try? FileManager.default.removeItem(at: place.root)
        }
        try SystemCommands.run("/usr/bin/chattr", ["+i", place.pictures.path])
        try await withBrowser(["pics"], in: place) { session in
            try await session.send("D")
            let screen = try await session.waitForScreen { $0.contains("could not move a.png to the trash") }
            #expect(screen.contains("could not move a.png to the trash: operation not permitted; left in place"))
            #expect(screen.contains("[ a.png ]") && screen.contains("3 images"))
            #expect(FileManager.default.fileExists(atPath: place.picture("a.png").path))
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test(.enabled(if: SystemCommands.canMount(), "needs to mount a tmpfs"))
    func aFileOnAnotherVolumeWithoutATrashIsReportedAndLeftInPlace() async throws {
        let place = try makePlace([])
        let volume = try mountVolume(in: place)
        defer {
            try? SystemCommands.run("/bin/umount", [volume.path])
            try? FileManager.default.removeItem(at: place.root)
        }
        try BrowseLocalTmuxTests.png(width: 30, height: 20) { x, _ in UInt8(x * 8) }.write(to: volume.appendingPathComponent("v.png"))
        try SystemCommands.run("/bin/mount", ["-o", "remount,ro", volume.path])
        let command = TmuxSession.imgviewCommand(["volume"], environment: place.environment)
        let session = try await TmuxSession(columns: 120, rows: 30, command: command, directory: place.root)
        do {
            _ = try await session.waitForScreen { $0.contains("source  local file") }
            try await session.send("D")
            let screen = try await session.waitForScreen { $0.contains("could not move v.png") }
            // The whole line is wider than the pane; the unit tests read all of it.
            #expect(screen.contains("could not move v.png to the trash: no trash can be made on"))
            #expect(FileManager.default.fileExists(atPath: volume.appendingPathComponent("v.png").path))
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        } catch {
            await session.kill()
            throw error
        }
        await session.kill()
    }

    // MARK: Open, the key-handler, save

    @Test func theOpenerTheKeyHandlerAndSaveGetTheMarkedImages() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        let opened = place.root.appendingPathComponent("opened")
        let opener = place.root.appendingPathComponent("opener")
        try Data("#!/bin/sh\nfor f in \"$@\"; do echo \"$f\" >> '\(opened.path)'; done\n".utf8).write(to: opener)
        let handled = place.root.appendingPathComponent("handled")
        let handler = place.configHome.appendingPathComponent("imgview/key-handler")
        try Data("#!/bin/sh\necho \"key $1\" > '\(handled.path)'\ncat >> '\(handled.path)'\necho \"did $1 to them\"\n".utf8).write(
            to: handler)
        for script in [opener, handler] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path) }
        try await withBrowser(["pics"], in: place, environment: ["IMGVIEW_OPENER": opener.path]) { session in
            try await session.send("t", "End", "t")
            _ = try await session.waitForScreen { $0.contains("2 marked") }
            try await session.send("o")
            _ = try await session.waitForScreen { $0.contains("opened 2 images with \(opener.path)") }
            #expect(try String(contentsOf: opened, encoding: .utf8) == "\(place.picture("a.png").path)\n\(place.picture("c.png").path)\n")
            // The key-handler: Ctrl-X, then a key.
            try await session.send("C-x")
            _ = try await session.waitForScreen { $0.contains("key-handler: press a key (Esc cancels)") }
            try await session.send("e")
            _ = try await session.waitForScreen { $0.contains("key-handler e: did e to them") }
            #expect(
                try String(contentsOf: handled, encoding: .utf8)
                    == "key e\n\(place.picture("a.png").path)\n\(place.picture("c.png").path)\n")
            // d saves each marked image into the working folder.
            try await session.send("d")
            _ = try await session.waitForScreen { $0.contains("saved 2 images to") }
            #expect(FileManager.default.fileExists(atPath: place.root.appendingPathComponent("a.png").path))
            #expect(FileManager.default.fileExists(atPath: place.root.appendingPathComponent("c.png").path))
            // Without a display or IMGVIEW_OPENER there is nothing to open in: said so.
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        try await withBrowser(["pics"], in: place) { session in
            try await session.send("o")
            _ = try await session.waitForScreen { $0.contains("cannot open: no desktop to open in (set IMGVIEW_OPENER") }
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func withADisplayAndNoOpenerXDGOpenGetsEachFileOnItsOwnAwayFromTheTerminal() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        let bin = place.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let opened = place.root.appendingPathComponent("opened")
        // Records its file and whether it has a terminal (it must not: it would draw over the browser).
        try Data("#!/bin/sh\necho \"$1 $(tty)\" >> '\(opened.path)'\n".utf8).write(to: bin.appendingPathComponent("xdg-open"))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin.appendingPathComponent("xdg-open").path)
        let environment = ["DISPLAY": ":99", "PATH": bin.path + ":/usr/bin:/bin"]
        try await withBrowser(["pics"], in: place, environment: environment) { session in
            try await session.send("t", "End", "t", "o")
            _ = try await session.waitForScreen { $0.contains("opened 2 images with xdg-open") }
            let lines = try String(contentsOf: opened, encoding: .utf8).split(separator: "\n").map(String.init).sorted()
            #expect(lines == ["\(place.picture("a.png").path) not a tty", "\(place.picture("c.png").path) not a tty"])
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func remoteImagesAreFetchedOnceThroughTheCacheForTheActionsThatNeedAFile() async throws {
        let place = try makePlace(["a.png"])
        defer { try? FileManager.default.removeItem(at: place.root) }
        let server = try await LoopbackServer.start()
        let photo = try Data(contentsOf: BrowseLocalTmuxTests.photo)
        server.publish(.data(photo, contentType: "image/jpeg"), at: "/far/r.jpg")
        let remote = server.url(for: "/far/r.jpg").absoluteString
        let opened = place.root.appendingPathComponent("opened")
        let opener = place.root.appendingPathComponent("opener")
        try Data("#!/bin/sh\nfor f in \"$@\"; do echo \"$f\" >> '\(opened.path)'; done\n".utf8).write(to: opener)
        let handled = place.root.appendingPathComponent("handled")
        let handler = place.configHome.appendingPathComponent("imgview/key-handler")
        try Data("#!/bin/sh\ncat > '\(handled.path)'\necho ok\n".utf8).write(to: handler)
        for script in [opener, handler] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path) }
        let runtime = place.root.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        try await stopping(server) {
            try await withBrowser(
                ["pics/a.png", remote, server.url(for: "/far/gone.jpg").absoluteString], in: place,
                environment: ["IMGVIEW_OPENER": opener.path, "XDG_RUNTIME_DIR": runtime.path]
            ) { session in
                try await session.send("t", "Right", "t")
                // Fetched as the neighbour of the first tab: from the memory cache once selected.
                _ = try await session.waitForScreen { $0.contains("format  JPEG 512×600") && $0.contains("2 marked") }
                try await session.send("o")
                _ = try await session.waitForScreen { $0.contains("opened 2 images with \(opener.path)") }
                let paths = try String(contentsOf: opened, encoding: .utf8).split(separator: "\n").map(String.init)
                // The local file where it is; the remote one as a whole copy in a private folder, not in the cache.
                #expect(paths.count == 2 && paths[0] == place.picture("a.png").path)
                #expect(paths[1].hasPrefix(runtime.path + "/imgview/") && paths[1].hasSuffix("/r.jpg"), "\(paths)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: paths[1])) == photo)
                try await session.send("C-x", "e")
                _ = try await session.waitForScreen { $0.contains("key-handler e: ok") }
                #expect(try String(contentsOf: handled, encoding: .utf8) == paths.joined(separator: "\n") + "\n")
                // Shown, opened and handed to the key-handler: fetched once.
                #expect(server.requests(for: "/far/r.jpg").count == 1)
                // The trash takes the local file and says the other is not one.
                try await session.send("D")
                _ = try await session.waitForScreen { $0.contains("moved a.png to the trash · u undoes; r.jpg is not a local file") }
                // One that cannot be fetched (r.jpg unmarked, so the selected one is the target): one line, and nothing was run.
                try await session.send("Home", "t", "End", "o")
                _ = try await session.waitForScreen { $0.contains("could not open gone.jpg:") && $0.contains("HTTP 404") }
                #expect(try String(contentsOf: opened, encoding: .utf8).split(separator: "\n").count == 2)
                try await session.send("q")
                _ = try await session.waitForScreen { $0.contains("EXIT=0") }
            }
        }
    }

    // MARK: Slideshow and order

    @Test func theSlideshowMovesOnStopsAtTheEndAndAKeyPausesIt() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        try await withBrowser(["--slideshow", "0.3", "pics"], in: place) { session in
            let screen = try await session.waitForScreen { $0.contains("slideshow ended at the last image") }
            #expect(screen.contains("[ c.png ]"))
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        try await withBrowser(["--slideshow", "60", "pics"], in: place) { session in
            _ = try await session.waitForScreen { $0.contains("▶ 60 s") }
            // A key pauses it, and does what it does.
            try await session.send("l")
            let paused = try await session.waitForScreen { $0.contains("slideshow paused · S resumes") }
            #expect(paused.contains("[ b.png ]"))
            try await session.send("S")
            _ = try await session.waitForScreen { $0.contains("slideshow: every 60 s · any key pauses it") && $0.contains("▶ 60 s") }
            try await session.send("S")
            _ = try await session.waitForScreen { $0.contains("slideshow stopped") }
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func sortOrdersTheTabsAndTheOrderKeyCyclesKeepingTheSelection() async throws {
        // Names against sizes: a is the largest, c the smallest; dates taken: b, then c, then a.
        let place = try makePlace(["c.jpg", "b.jpg", "a.jpg"])
        defer { try? FileManager.default.removeItem(at: place.root) }
        let photo = try Data(contentsOf: BrowseLocalTmuxTests.photo)
        for (name, date, padding) in [
            ("a.jpg", "2024:03:01 10:00:00", 3000), ("b.jpg", "2022:01:01 10:00:00", 1000), ("c.jpg", "2023:06:01 10:00:00", 0),
        ] {
            try ExifFixture.jpeg(photo, tiff: ExifFixture.tiff(original: date, padding: padding)).write(to: place.picture(name))
        }
        // Each screen is read once its status line is drawn: the tabs come first, the count after.
        try await withBrowser(["--sort", "size", "pics"], in: place) { session in
            let screen = try await session.waitForScreen { $0.contains("3 images · by size") }
            #expect(screen.contains("[ c.jpg ]  b.jpg    a.jpg "), "\(screen)")
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        try await withBrowser(["--sort", "date", "--reverse", "pics"], in: place) { session in
            let screen = try await session.waitForScreen { $0.contains("3 images · by date") }
            #expect(screen.contains("[ a.jpg ]  c.jpg    b.jpg "), "\(screen)")
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        try await withBrowser(["pics"], in: place) { session in
            // As listed: natural order. O: by date taken; the selection stays on a.jpg.
            let listed = try await session.waitForScreen { $0.contains("3 images") && $0.contains("c.jpg ") }
            #expect(listed.contains("[ a.jpg ]  b.jpg    c.jpg "), "\(listed)")
            try await session.send("O")
            // The tabs, the count and the notice are drawn in turn: the screen is read once all are there.
            let dated = try await session.waitForScreen {
                $0.contains("3 images · by date") && $0.contains("sorted by date taken · O: modification time next")
            }
            #expect(dated.contains("  b.jpg    c.jpg  [ a.jpg ]"), "\(dated)")
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        try await withBrowser(["--shuffle", "pics"], in: place) { session in
            let screen = try await session.waitForScreen { $0.contains("3 images · shuffled") }
            #expect(["a.jpg", "b.jpg", "c.jpg"].allSatisfy { screen.contains($0) })
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func sortByDateReadsTheDateTakenOfEveryFormat() async throws {
        // Taken in 2024 and 2010 (JPEGs), and in 2019: camera-exif's EXIF kept by the HEIC, WebP,
        // JPEG XL and AVIF encoders. Copied now, the four would sort last by modification time.
        let place = try makePlace([])
        defer { try? FileManager.default.removeItem(at: place.root) }
        let photo = try Data(contentsOf: BrowseLocalTmuxTests.photo)
        try ExifFixture.jpeg(photo, tiff: ExifFixture.tiff(original: "2024:03:01 10:00:00")).write(to: place.picture("a.jpg"))
        try ExifFixture.jpeg(photo, tiff: ExifFixture.tiff(original: "2010:03:01 10:00:00")).write(to: place.picture("f.jpg"))
        for (name, fixture) in [
            ("b.heic", "camera-exif.heic"), ("c.webp", "camera-exif.webp"), ("d.jxl", "camera-exif.jxl"), ("e.avif", "camera-exif.avif"),
        ] {
            try Fixtures.data(fixture).write(to: place.picture(name))
        }
        try await withBrowser(["--sort", "date", "pics"], in: place) { session in
            let screen = try await session.waitForScreen { $0.contains("6 images · by date") }
            let strip = try #require(screen.split(separator: "\n").first { $0.contains("a.jpg") && $0.contains("f.jpg") }.map(String.init))
            let positions = ["f.jpg", "b.heic", "c.webp", "d.jxl", "e.avif", "a.jpg"].map { strip.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil } && positions.map { $0! } == positions.map { $0! }.sorted(), "\(strip)")
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    /// A GIF of three frames of 0.6 s, red, lime and blue (ASCII `!`, `B`, `.`), played once:
    /// ImageMagick's `convert -size 40x30 xc:red xc:lime xc:blue -set delay 60 -loop 1`.
    static let threeFrames = Data(
        base64Encoded:
            "R0lGODlhKAAeAPAAAP8AAAAAACH5BAA8AAAALAAAAAAoAB4AAAIhhI+py+0Po5y02ouz3rz7D4biSJbmiabqyrbuC8fyTHMFACH5BAA8AAAALAAAAAAoAB4AgAD/AAAAAAIhhI+py+0Po5y02ouz3rz7D4biSJbmiabqyrbuC8fyTHMFACH5BAA8AAAALAAAAAAoAB4AgAAA/wAAAAIhhI+py+0Po5y02ouz3rz7D4biSJbmiabqyrbuC8fyTHMFADs="
    )!

    @Test func theSlideshowWaitsForAnAnimationToPlayToItsEnd() async throws {
        let place = try makePlace(["a.png", "c.png"])
        defer { try? FileManager.default.removeItem(at: place.root) }
        try Self.threeFrames.write(to: place.picture("b.gif"))
        let blue = String(repeating: ".", count: 30)
        // Every 0.3 s, but the GIF's 1.8 s play whole: its last frame is seen while it is still the selected tab.
        try await withBrowser(["--slideshow", "0.3", "--mode", "ascii", "pics"], in: place) { session in
            let lime = try await session.waitForScreen { $0.contains(String(repeating: "B", count: 30)) }
            #expect(lime.contains("[ b.gif ]"))
            let last = try await session.waitForScreen { $0.contains(blue) }
            #expect(last.contains("[ b.gif ]"), "\(last)")
            let end = try await session.waitForScreen { $0.contains("slideshow ended at the last image") }
            #expect(end.contains("[ c.png ]") && !end.contains(blue))
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func sortByModificationTimeAndDateTakenFallsBackToIt() async throws {
        // a.png modified last, c.png first; b.jpg taken in 2022 but copied now.
        let place = try makePlace(["a.png", "c.png"])
        defer { try? FileManager.default.removeItem(at: place.root) }
        try ExifFixture.jpeg(try Data(contentsOf: BrowseLocalTmuxTests.photo), tiff: ExifFixture.tiff(original: "2022:01:01 10:00:00"))
            .write(to: place.picture("b.jpg"))
        for (name, year) in [("a.png", 2024), ("c.png", 2021)] {
            let date = try #require(DateComponents(calendar: Calendar(identifier: .gregorian), year: year, month: 6, day: 1).date)
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: place.picture(name).path)
        }
        try await withBrowser(["--sort", "mtime", "pics"], in: place) { session in
            let screen = try await session.waitForScreen { $0.contains("3 images · by mtime") }
            #expect(screen.contains("[ c.png ]  a.png    b.jpg "), "\(screen)")
            // O after modification time: size (a.png the smallest, the photograph the largest); the selection stays.
            try await session.send("O")
            // The status line and the strip may come in separate frames: wait for both.
            try await session.waitForScreen { $0.contains("3 images · by size") && $0.contains("  a.png  [ c.png ]  b.jpg ") }
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        try await withBrowser(["--sort", "date", "pics"], in: place) { session in
            // The PNGs have no EXIF date: their modification times, 2021 and 2024, around 2022's photograph.
            let screen = try await session.waitForScreen { $0.contains("3 images · by date") }
            #expect(screen.contains("[ c.png ]  b.jpg    a.png "), "\(screen)")
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    @Test func theConfigFileSetsTheOrderAndTheSlideshowAndTheCommandLineWins() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        try Data("sort = \"size\"\nreverse = true\nslideshow-interval = 0.2\nmode = \"ascii\"\n".utf8).write(
            to: place.configHome.appendingPathComponent("imgview/config.toml"))
        try await withBrowser(["pics"], in: place) { session in
            // Sizes grow with the name; reversed, c first.
            let screen = try await session.waitForScreen { $0.contains("3 images · by size, reversed") }
            #expect(screen.contains("[ c.png ]  b.png    a.png ") && screen.contains("preview · ascii"), "\(screen)")
            try await session.send("S")
            _ = try await session.waitForScreen { $0.contains("slideshow ended at the last image") && $0.contains("[ a.png ]") }
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        // The command line over the file, the environment between them.
        try await withBrowser(["--sort", "name", "--no-reverse", "pics"], in: place, environment: ["IMGVIEW_MODE": "blocks"]) { session in
            let screen = try await session.waitForScreen { $0.contains("[ a.png ]  b.png    c.png ") && $0.contains("preview ·") }
            #expect(!screen.contains("by size") && screen.contains("preview · blocks"), "\(screen)")
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
        try await withBrowser(["--mode", "ascii", "pics"], in: place, environment: ["IMGVIEW_MODE": "blocks"]) { session in
            _ = try await session.waitForScreen { $0.contains("preview · ascii") }
            try await session.send("q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }

    // MARK: Keys from the config file

    @Test func aConfigFileRemapsKeysAndTheHelpShowsThem() async throws {
        let place = try makePlace()
        defer { try? FileManager.default.removeItem(at: place.root) }
        try Data(
            """
            # my keys
            [keys]
            next = ["n", "Right"]
            quit = "Q"
            mark = "C-t"
            """.utf8
        ).write(to: place.configHome.appendingPathComponent("imgview/config.toml"))
        try await withBrowser(["pics"], in: place) { session in
            try await session.send("n")
            _ = try await session.waitForScreen { $0.contains("[ b.png ]") }
            try await session.send("C-t")
            _ = try await session.waitForScreen { $0.contains("marked b.png · 1 marked") }
            // q is no longer quit; the help and the hints show the keys as bound.
            try await session.send("q", "?")
            let help = try await session.waitForScreen { $0.contains("┌ keys") }
            #expect(help.contains("← h S-Tab / n →"))
            #expect(help.contains("Ctrl-T / T / *"))
            try await session.send("Escape")
            let hints = try await session.waitForScreen { !$0.contains("┌ keys") }
            #expect(hints.contains("Q quit") && hints.contains("← n tab"))
            try await session.send("Q")
            _ = try await session.waitForScreen { $0.contains("EXIT=0") }
        }
    }
}
