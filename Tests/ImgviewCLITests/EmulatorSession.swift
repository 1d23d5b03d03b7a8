import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A terminal emulator that draws pixels, headless: its own Xvfb display, one emulator window
/// running a command, screenshots of the display, and a similarity score against a source image.
/// How pixel output is tested for real (../shared/LINUX-NOTES.md, "Terminals that draw pixels").
final class EmulatorSession: @unchecked Sendable {
    enum Emulator: String, CaseIterable, Sendable {
        /// xterm as a VT340: sixel (plain xterm's DA1 has no 4 and draws nothing).
        case xterm
        /// kitty on Mesa's software renderer: the kitty graphics protocol (~10 s to start).
        case kitty
        /// mlterm: sixel and iTerm2 inline images.
        case mlterm
    }

    /// The background every emulator is given: a colour no photograph's edge is, so the drawn
    /// image's bounding box is easy to find.
    static let background = "#ff00ff"

    let emulator: Emulator
    let directory: URL
    let display: Int
    private let server: Process
    private let window: Process
    /// The file the command touches when it has written everything.
    private var doneMarker: URL { directory.appendingPathComponent("done") }

    /// Starts Xvfb and `emulator` running `command` (by `sh -c`) in a window of `columns × rows` cells.
    init(_ emulator: Emulator, columns: Int = 100, rows: Int = 30, command: String) async throws {
        try Self.requireTools(for: emulator)
        self.emulator = emulator
        directory = try makeTemporaryDirectory()
        (server, display) = try await Self.startServer()
        let wrapped = "\(command); touch \(TmuxSession.shellQuoted(directory.appendingPathComponent("done").path)); read -r _"
        window = Process()
        window.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var environment = ImgviewProcess.environment([:])
        for name in ["TMUX", "TMUX_PANE", "STY", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY", "TERM_PROGRAM", "COLORTERM", "KITTY_WINDOW_ID"]
        {
            environment[name] = nil
        }
        environment["DISPLAY"] = ":\(display)"
        environment["LANG"] = "C.UTF-8"
        switch emulator {
        case .xterm:
            window.arguments = [
                "xterm", "-ti", "vt340", "-xrm", "XTerm*allowWindowOps: true", "-fa", "DejaVu Sans Mono", "-fs", "11",
                "-bg", Self.background, "-fg", "white", "-geometry", "\(columns)x\(rows)+0+0", "-e", "sh", "-c", wrapped,
            ]
        case .mlterm:
            window.arguments = ["mlterm", "-g", "\(columns)x\(rows)+0+0", "-b", Self.background, "-f", "white", "-e", "sh", "-c", wrapped]
        case .kitty:
            environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
            window.arguments = [
                "kitty", "--config", "NONE", "-o", "initial_window_width=\(columns)c", "-o", "initial_window_height=\(rows)c",
                "-o", "remember_window_size=no", "-o", "background=\(Self.background)", "-o", "foreground=white",
                "-o", "cursor_blink_interval=0", "sh", "-c", wrapped,
            ]
        }
        window.environment = environment
        window.standardInput = FileHandle.nullDevice
        window.standardOutput = FileHandle.nullDevice
        window.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try window.run()
    }

    deinit {
        stop()
    }

    /// Ends the emulator and the display server (only the processes this session started).
    ///
    /// SIGKILL: a process started from a test thread may inherit a mask that blocks SIGTERM.
    /// The command inside ends by itself once its terminal is gone (`read` meets end of file).
    func stop() {
        for process in [window, server] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        for leftover in ["/tmp/.X\(display)-lock", "/tmp/.X11-unix/X\(display)"] { unlink(leftover) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Waits until the command has written everything (or has created `marker`), then a little
    /// longer for it to be drawn.
    func waitUntilDone(marker: URL? = nil, timeout: Duration = .seconds(60), settle: Duration = .milliseconds(1500)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !FileManager.default.fileExists(atPath: (marker ?? doneMarker).path) {
            guard window.isRunning else {
                throw HarnessError("\(emulator) exited (status \(window.terminationStatus)) before the command finished")
            }
            guard ContinuousClock.now < deadline else { throw HarnessError("\(emulator): the command did not finish within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: settle)
    }

    /// Types `keys` (xdotool's key names: `Right`, `question`, `q`) into the window. With no window
    /// manager the keyboard goes to the window under the pointer, so the pointer is put over it.
    func press(_ keys: String...) async throws {
        let (status, output) = try await Self.run(
            "/usr/bin/env", ["DISPLAY=:\(display)", "xdotool", "mousemove", "40", "40", "key", "--delay", "60"] + keys)
        guard status == 0 else { throw HarnessError("xdotool failed: \(output)") }
    }

    /// Types `text` into the window as keystrokes (a command line for a shell inside, say).
    func type(_ text: String) async throws {
        let (status, output) = try await Self.run(
            "/usr/bin/env", ["DISPLAY=:\(display)", "xdotool", "mousemove", "40", "40", "type", "--delay", "20", text])
        guard status == 0 else { throw HarnessError("xdotool failed: \(output)") }
    }

    /// Makes the terminal draw its whole window again from what it holds, as it does when the
    /// window is uncovered: pixels it still keeps under cells that only look blank come back.
    /// (The window is unmapped and mapped again; there is no window manager to ask.) Nothing to
    /// do while the window has not appeared yet.
    func repaint() async throws {
        let display = "DISPLAY=:\(display)"
        let (found, windows) = try await Self.run(
            "/usr/bin/env", [display, "xdotool", "search", "--onlyvisible", "--class", emulator.rawValue])
        let ids = windows.split(whereSeparator: \.isNewline).map(String.init).filter { Int($0) != nil }
        guard found == 0, !ids.isEmpty else { return }
        for id in ids {
            let (status, output) = try await Self.run(
                "/usr/bin/env", [display, "xdotool", "windowunmap", "--sync", id, "windowmap", "--sync", id])
            guard status == 0 else { throw HarnessError("xdotool could not repaint the \(emulator) window: \(output)") }
        }
        try await Task.sleep(for: .milliseconds(300))
    }

    /// A PNG of the whole display, kept in the session's folder under `name`.
    func screenshot(_ name: String) async throws -> URL {
        let file = directory.appendingPathComponent(name + ".png")
        let (status, output) = try await Self.run("/usr/bin/import", ["-display", ":\(display)", "-window", "root", file.path])
        guard status == 0 else { throw HarnessError("import failed: \(output)") }
        return file
    }

    /// How closely the screenshot shows `source`: SSIM of the drawn region, and where it is.
    struct Similarity: Decodable {
        let ssim: Double
        let box: [Int]?
        let colourError: Double
        /// The share of the searched pixels that belong to no text: an image's.
        let imageFraction: Double?

        enum CodingKeys: String, CodingKey {
            case ssim, box
            case colourError = "colour_error"
            case imageFraction = "image_fraction"
        }
    }

    /// How closely `screenshot` shows `source`, searching the whole display, or only `cells`
    /// (column, row, width, height) of a window of `grid` cells (columns, rows).
    static func similarity(
        of screenshot: URL, to source: URL, cells: (Int, Int, Int, Int)? = nil, grid: (columns: Int, rows: Int)? = nil
    ) async throws -> Similarity {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Emulators/similarity.py")
        var arguments = [script.path, screenshot.path, source.path, "--background", background]
        if let cells, let grid {
            arguments += ["--grid", "\(grid.columns),\(grid.rows)", "--cells", "\(cells.0),\(cells.1),\(cells.2),\(cells.3)"]
        }
        let (status, output) = try await run("/usr/bin/env", ["python3"] + arguments)
        guard status == 0 else { throw HarnessError("similarity.py failed: \(output)") }
        return try JSONDecoder().decode(Similarity.self, from: Data(output.utf8))
    }

    /// Keeps a screenshot as documentation (`docs/screenshots/NAME.png`) when IMGVIEW_RECORD_SCREENSHOTS=1.
    static func record(_ screenshot: URL, as name: String, crop box: [Int]?) async throws {
        guard ProcessInfo.processInfo.environment["IMGVIEW_RECORD_SCREENSHOTS"] == "1" else { return }
        let target = ImgviewProcess.repositoryRoot.appendingPathComponent("docs/screenshots/\(name).png")
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        var arguments = [screenshot.path]
        if let box, box.count == 4 {
            // The drawn region with a margin of the terminal around it.
            let margin = 12
            arguments += [
                "-crop", "\(box[2] + 2 * margin)x\(box[3] + 2 * margin)+\(max(0, box[0] - margin))+\(max(0, box[1] - margin))", "+repage",
            ]
        }
        _ = try await Self.run("/usr/bin/convert", arguments + [target.path])
    }

    /// Fails with what to install when a tool the harness needs is missing.
    static func requireTools(for emulator: Emulator) throws {
        let needed = ["/usr/bin/Xvfb", "/usr/bin/import", "/usr/bin/xdotool", "/usr/bin/\(emulator.rawValue)"]
        for tool in needed where !FileManager.default.isExecutableFile(atPath: tool) {
            throw HarnessError("\(tool) is missing: run scripts/setup-emulators.sh (make test does)")
        }
    }

    /// An Xvfb server on a free display number.
    private static func startServer() async throws -> (Process, Int) {
        for _ in 0..<20 {
            let number = Int.random(in: 200..<900)
            guard !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock"),
                !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            else { continue }
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            server.arguments = [":\(number)", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
            server.standardInput = FileHandle.nullDevice
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            let deadline = ContinuousClock.now + .seconds(10)
            while server.isRunning, ContinuousClock.now < deadline {
                if FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { return (server, number) }
                try await Task.sleep(for: .milliseconds(20))
            }
            if server.isRunning { server.terminate() }
        }
        throw HarnessError("no Xvfb display could be started")
    }
}

extension EmulatorSession {
    /// Runs a short-lived tool to completion: its exit status and what it printed.
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = await readToEnd(output)
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
