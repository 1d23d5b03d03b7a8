import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// `imgview list` and the global options, run as a user runs them.
@Suite("imgview list and the catalog options")
struct CatalogCommandTests {
    func names(inCatalogJSON text: String) throws -> [String] {
        try CatalogParser(origin: .builtIn, baseURL: nil).parse(Data(text.utf8)).images.map(\.name)
    }

    @Test func listJSONPrintsTheBuiltInCatalog() async throws {
        let result = try await ImgviewProcess.run(["list", "--json"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(try names(inCatalogJSON: result.stdout) == ["image0", "image1"])
        #expect(result.stdout.contains("https://github.com/nhamada/app_dev_tutorial/raw/master/01_DownloadImage/images/image00.jpg"))
    }

    /// In a pipe: no header, no padding, tab-separated, as `cache ls` prints.
    @Test func listInAPipePrintsOneLinePerImage() async throws {
        let result = try await ImgviewProcess.run(["list"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                image0\tTutorial image 0\thttps://github.com/nhamada/app_dev_tutorial/raw/master/01_DownloadImage/images/image00.jpg\tno
                image1\tTutorial image 1\thttps://github.com/nhamada/app_dev_tutorial/raw/master/01_DownloadImage/images/image01.jpg\tno

                """)
    }

    /// On a terminal: a table with a header, fitted to its width (URLs lose their middles).
    @Test(.enabled(if: TmuxSession.isAvailable)) func listOnATerminalFitsItsWidth() async throws {
        // Tall enough for the list, the exit status and the `stty -a` the session prints after them.
        let session = try await TmuxSession(columns: 60, rows: 40, command: TmuxSession.imgviewCommand(["list"]))
        let screen = try await session.waitForScreen { $0.contains("EXIT=") }
        await session.kill()
        #expect(screen.contains("EXIT=0"), "\(screen)")
        let lines = screen.split(separator: "\n")
        #expect(lines.first?.hasPrefix("NAME    TITLE") == true, "\(screen)")
        #expect(lines.count >= 3 && lines[1].hasPrefix("image0  Tutorial image 0  https://") && lines[1].contains("…"), "\(screen)")
        #expect(lines.prefix(3).allSatisfy { $0.count <= 60 }, "\(screen)")
    }

    @Test(arguments: [
        ["--catalog", "CATALOG", "list", "--json"],
        ["list", "--catalog", "CATALOG", "--json"],
        ["--catalog=CATALOG", "list", "--json"],
    ])
    func catalogOptionWorksBeforeOrAfterTheSubcommand(arguments: [String]) async throws {
        let path = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/demo-catalog.json").path
        let result = try await ImgviewProcess.run(arguments.map { $0.replacingOccurrences(of: "CATALOG", with: path) })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try names(inCatalogJSON: result.stdout).first == "hopper")
    }

    @Test func catalogComesFromTheEnvironment() async throws {
        let path = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/demo-catalog.json").path
        let result = try await ImgviewProcess.run(["list", "--json"], environment: ["IMGVIEW_CATALOG": path])
        #expect(try names(inCatalogJSON: result.stdout).count == 6)
    }

    @Test(
        "A malformed catalog file: one line naming the file and entry, exit 3",
        arguments: [
            ("{", "is not valid JSON"),
            (#"{"images": []}"#, "lists no images"),
            (#"{"images": [{"name": "A", "url": "http://h/a.jpg"}]}"#, #"entry 1 ("A"): invalid name "A""#),
            (
                #"{"images": [{"name": "a", "url": "http://h/a.jpg"}, {"name": "a", "url": "http://h/b.jpg"}]}"#,
                #"entry 2 ("a"): duplicate name "a""#
            ),
            (#"{"images": [{"name": "a", "url": "gopher://h/a.jpg"}]}"#, #"entry 1 ("a"): unsupported URL scheme "gopher""#),
            (#"{"images": [{"name": "a", "url": "http://"}]}"#, #"entry 1 ("a"): invalid URL "http://""#),
        ])
    func malformedCatalogFile(json: String, problem: String) async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.json")
        try Data(json.utf8).write(to: file)
        let result = try await ImgviewProcess.run(["--catalog", file.path, "list"])
        #expect(result.status == ExitStatus.catalog.rawValue)
        #expect(result.stdout.isEmpty)
        #expect(result.errorLine.hasPrefix("imgview: catalog \(file.path)"), "\(result.stderr)")
        #expect(result.errorLine.contains(problem), "\(result.stderr)")
        #expect(!result.errorLine.contains("\n"))
    }

    @Test func missingCatalogFile() async throws {
        let result = try await ImgviewProcess.run(["list", "--catalog", "/nonexistent/catalog.json"])
        #expect(result.status == ExitStatus.catalog.rawValue)
        #expect(result.errorLine == "imgview: catalog /nonexistent/catalog.json: cannot be read: no such file")
    }

    @Test func usageErrorsExit2() async throws {
        let result = try await ImgviewProcess.run(["list", "--no-such-option"])
        #expect(result.status == ExitStatus.usage.rawValue)
        #expect(result.stderr.hasPrefix("Error: Unknown option '--no-such-option'"))
        let unknown = try await ImgviewProcess.run(["frobnicate"])
        #expect(unknown.status == ExitStatus.usage.rawValue)
    }

    @Test func aSubcommandParsedOnItsOwnAnswersAsTheRootDoes() async throws {
        // `show`, `info`, `get` and the other leaf subcommands are parsed without the root (for
        // start-up); what that parse does not accept is parsed again from the root, so help, the
        // version, completion scripts and usage errors read as they always have.
        for arguments in [["show", "--help"], ["info", "-h"], ["get", "--help"]] {
            let result = try await ImgviewProcess.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("USAGE: imgview \(arguments[0])"), "\(arguments): \(result.stdout.prefix(200))")
        }
        let root = try await ImgviewProcess.run(["--version"])
        let version = try await ImgviewProcess.run(["show", "--version"])
        #expect(version.status == 0 && version.stdout == root.stdout, "\(version)")
        let usage = try await ImgviewProcess.run(["show", "--size", "wide", "x.png"])
        #expect(usage.status == ExitStatus.usage.rawValue)
        #expect(usage.stderr.hasPrefix("Error: The value 'wide' is invalid for '--size <COLSxROWS>'"))
        #expect(usage.stderr.contains("Usage: imgview show"), "\(usage.stderr)")
        let validation = try await ImgviewProcess.run(["get"])
        #expect(validation.status == ExitStatus.usage.rawValue)
        #expect(validation.stderr.contains("Usage: imgview get"), "\(validation.stderr)")
        let completion = try await ImgviewProcess.run(["info", "--generate-completion-script", "bash"])
        #expect(completion.status == 0 && completion.stdout.contains("_imgview"), "the whole program's script")
    }

    @Test(arguments: [["--help"], ["list", "--help"], ["serve", "--help"], ["help", "list"]])
    func helpOnEveryCommand(arguments: [String]) async throws {
        let result = try await ImgviewProcess.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: imgview"))
    }

    @Test func versionPrintsTheVersion() async throws {
        let result = try await ImgviewProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        #expect(result.stdout.hasSuffix("\n") && result.stdout.split(separator: "\n").count == 1 && result.stderr.isEmpty)
        // Answered before the parser; with anything else beside it, the parser answers, alike.
        let parsed = try await ImgviewProcess.run(["--version", "--version"])
        #expect(parsed.status == 0 && parsed.stdout == result.stdout, "\(parsed)")
    }

    @Test func remotePagedCatalogIsReadWhole() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.stop() } }
        server.publish(
            .data(Data(#"{"images": [{"name": "a", "url": "/a.jpg"}], "next": "/page2.json"}"#.utf8), contentType: "application/json"),
            at: "/page1.json")
        server.publish(
            .data(Data(#"{"images": [{"name": "b", "url": "/b.jpg"}], "next": "/page3.json"}"#.utf8), contentType: "application/json"),
            at: "/page2.json")
        server.publish(
            .data(Data(#"{"images": [{"name": "c", "url": "c.jpg"}]}"#.utf8), contentType: "application/json"), at: "/page3.json")
        let result = try await ImgviewProcess.run(["--catalog", server.url(for: "/page1.json").absoluteString, "list", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try names(inCatalogJSON: result.stdout) == ["a", "b", "c"])
        #expect(result.stdout.contains(server.url(for: "/c.jpg").absoluteString))
    }

    @Test func remoteCatalogFailures() async throws {
        let server = try await LoopbackServer.start()
        defer { Task { await server.stop() } }
        server.publish(
            .data(Data(#"{"images": [{"name": "a", "url": "/a.jpg"}], "next": "/loop.json"}"#.utf8), contentType: "application/json"),
            at: "/loop.json")
        let loop = try await ImgviewProcess.run(["--catalog", server.url(for: "/loop.json").absoluteString, "list"])
        #expect(loop.status == ExitStatus.catalog.rawValue)
        #expect(loop.errorLine.contains("\"next\" leads back to a page already read"))

        let missing = try await ImgviewProcess.run(["--catalog", server.url(for: "/missing.json").absoluteString, "list"])
        #expect(missing.status == ExitStatus.catalog.rawValue)
        #expect(missing.errorLine == "imgview: catalog \(server.url(for: "/missing.json")): cannot be fetched: HTTP 404")

        server.publish(
            .data(
                Data(#"{"images": [{"name": "a", "url": "/a.jpg"}, {"name": "a", "url": "/b.jpg"}]}"#.utf8), contentType: "application/json"
            ),
            at: "/dup.json")
        let duplicate = try await ImgviewProcess.run(["--catalog", server.url(for: "/dup.json").absoluteString, "list"])
        #expect(duplicate.errorLine == "imgview: catalog \(server.url(for: "/dup.json")), entry 2 (\"a\"): duplicate name \"a\"")

        let refused = try await ImgviewProcess.run(["--catalog", "http://127.0.0.1:1/c.json", "list"])
        #expect(refused.status == ExitStatus.catalog.rawValue)
        #expect(refused.errorLine == "imgview: catalog http://127.0.0.1:1/c.json: cannot be fetched: connection refused")

        let offline = try await ImgviewProcess.run(["--offline", "--catalog", server.url(for: "/loop.json").absoluteString, "list"])
        #expect(offline.status == ExitStatus.offlineMiss.rawValue)
    }
}

/// `imgview` without a terminal.
@Suite("imgview browse without a terminal")
struct BrowseWithoutTerminalTests {
    @Test func saysSoAndPointsAtShowAndGet() async throws {
        for arguments in [[], ["browse"]] {
            let result = try await ImgviewProcess.run(arguments)
            #expect(result.status == 2)
            #expect(result.errorLine.hasPrefix("imgview: the browser needs a terminal"))
            #expect(result.errorLine.contains("imgview show NAME") && result.errorLine.contains("imgview get NAME"))
            #expect(!result.errorLine.contains("\n"))
            #expect(result.stdout.isEmpty)
        }
    }
}

/// Shell completions, generated by swift-argument-parser from the commands' definitions.
@Suite("imgview completions")
struct CompletionScriptTests {
    @Test(arguments: ["bash", "zsh", "fish"])
    func scriptsNameEverySubcommand(shell: String) async throws {
        let result = try await ImgviewProcess.run(["--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.stderr)")
        for subcommand in ["browse", "demo", "list", "get", "show", "info", "serve", "cache"] {
            #expect(result.stdout.contains(subcommand), "\(shell) completion lacks \(subcommand)")
        }
    }

    /// `imgview list --json | head -1`: once the reader has gone, imgview ends by SIGPIPE, as cat does, with no crash report.
    @Test func aClosedPipeEndsQuietly() async throws {
        let (process, stdout, stderr) = try ImgviewProcess.start(
            ["show", "Assets/images/01_grace_hopper.jpg", "--size", "200x100"],
            directory: ImgviewProcess.repositoryRoot)
        try stdout.fileHandleForReading.close()
        let errors = await readToEnd(stderr)
        try await offPool { process.waitUntilExit() }
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGPIPE)
        #expect(errors.isEmpty, "\(String(decoding: errors, as: UTF8.self))")
    }
}
