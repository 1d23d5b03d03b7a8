import Foundation
import ImgviewServer
import Testing

/// The config file from outside: defaults it sets, the order in which the command line, the
/// environment and the file win, `imgview config`, and a bad file as one line and exit 2.
@Suite("Config file and imgview config")
struct ConfigCommandTests {
    /// A config home holding `text` as its config.toml; the environment that points at it.
    func withConfig(_ text: String, _ body: (_ environment: [String: String], _ file: URL) async throws -> Void) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("imgview/config.toml")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        try await body(["XDG_CONFIG_HOME": folder.path, "HOME": folder.path], file)
    }

    @Test func configPrintsEachSettingAndWhereItCameFrom() async throws {
        try await withConfig(
            """
            mode = "ascii"
            cache-size = "2G"
            jobs = 8
            cache-dir = "cache here"
            [keys]
            next = ["n"]
            """
        ) { environment, file in
            var env = environment
            env["IMGVIEW_CACHE_SIZE"] = "3G"
            env["IMGVIEW_CACHE_DIR"] = ""
            let result = try await ImgviewProcess.run(["config", "--catalog", "c.json"], environment: env)
            #expect(result.status == 0, "\(result.stderr)")
            let rows = Dictionary(
                uniqueKeysWithValues: result.stdout.split(separator: "\n").map { line in
                    let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                    return (fields[0], Array(fields.dropFirst()))
                })
            #expect(rows["mode"] == ["ascii", "config.toml:1"])
            #expect(rows["cache-size"] == ["3 GiB", "IMGVIEW_CACHE_SIZE"], "the environment wins over the file")
            #expect(rows["jobs"] == ["8", "config.toml:3"])
            // A relative path in the file is relative to the file's folder.
            #expect(rows["cache-dir"] == [file.deletingLastPathComponent().appendingPathComponent("cache here").path, "config.toml:4"])
            #expect(rows["catalog"]?[1] == "command line")
            #expect(rows["retry"] == ["3", "default"])
            #expect(rows["keys.next"] == ["n", "config.toml:6"])
            #expect(rows["keys.previous"] == ["Left h S-Tab", "default"])
            // The same as JSON.
            let json = try await ImgviewProcess.run(["config", "--json"], environment: env)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["file"] as? String == file.path)
            #expect(object["read"] as? Bool == true)
            let settings = try #require(object["settings"] as? [[String: Any]])
            let mode = try #require(settings.first { $0["name"] as? String == "mode" })
            #expect(mode["source"] as? String == "file" && mode["line"] as? Int == 1 && mode["value"] as? String == "ascii")
            let size = try #require(settings.first { $0["name"] as? String == "cache-size" })
            #expect(size["source"] as? String == "environment" && size["variable"] as? String == "IMGVIEW_CACHE_SIZE")
            // --no-config: the defaults.
            let ignored = try await ImgviewProcess.run(["config", "--no-config"], environment: environment)
            #expect(ignored.stdout.contains("mode\tauto\tdefault\n"))
        }
    }

    @Test func theFileSetsDefaultsTheCommandLineOverrides() async throws {
        try await withConfig("mode = \"ascii\"\ncolors = \"none\"\n") { environment, _ in
            let image = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/04_coffee.png").path
            // ASCII without colours, from the file: no escape sequences, only characters.
            let plain = try await ImgviewProcess.run(["show", image, "--size", "20x6"], environment: environment)
            #expect(plain.status == 0)
            #expect(!plain.stdout.contains("\u{1B}["))
            // The command line wins.
            let blocks = try await ImgviewProcess.run(
                ["show", image, "--size", "20x6", "--mode", "blocks", "--colors", "256"], environment: environment)
            #expect(blocks.stdout.contains("\u{1B}[38;5;"))
            // The environment between them: IMGVIEW_MODE over the file, --mode over IMGVIEW_MODE.
            func hasBlocks(_ text: String) -> Bool { text.unicodeScalars.contains { (0x2580...0x259F).contains($0.value) } }
            var withVariable = environment
            withVariable["IMGVIEW_MODE"] = "blocks"
            let fromVariable = try await ImgviewProcess.run(["show", image, "--size", "20x6"], environment: withVariable)
            #expect(fromVariable.status == 0 && hasBlocks(fromVariable.stdout) && !fromVariable.stdout.contains("\u{1B}["))
            let fromCommandLine = try await ImgviewProcess.run(
                ["show", image, "--size", "20x6", "--mode", "ascii"], environment: withVariable)
            #expect(fromCommandLine.status == 0 && !hasBlocks(fromCommandLine.stdout) && !fromCommandLine.stdout.isEmpty)
        }
    }

    @Test func theFileSetsTheUserAgentTheCommandLineOverrides() async throws {
        try await withConfig("user-agent = \"gallery-bot/1\"\n") { environment, _ in
            let server = try await LoopbackServer.start()
            let folder = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            try await stopping(server) {
                let jpeg = try Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))
                server.publish(.data(jpeg, contentType: "image/jpeg"), at: "/a.jpg")
                server.publish(.data(jpeg, contentType: "image/jpeg"), at: "/b.jpg")
                var env = environment
                env["IMGVIEW_CACHE_DIR"] = folder.appendingPathComponent("cache").path
                let fromFile = try await ImgviewProcess.run(
                    ["get", server.url(for: "/a.jpg").absoluteString, "--quiet"], environment: env, directory: folder)
                #expect(fromFile.status == 0, "\(fromFile.stderr)")
                #expect(server.requests(for: "/a.jpg").first?.header("user-agent") == "gallery-bot/1")
                let given = try await ImgviewProcess.run(
                    ["get", server.url(for: "/b.jpg").absoluteString, "--quiet", "--user-agent", "me/2"], environment: env,
                    directory: folder)
                #expect(given.status == 0, "\(given.stderr)")
                #expect(server.requests(for: "/b.jpg").first?.header("user-agent") == "me/2")
                let rows = try await ImgviewProcess.run(["config"], environment: env)
                #expect(rows.stdout.contains("user-agent\tgallery-bot/1\tconfig.toml:1\n"))
            }
        }
    }

    @Test func aBadFileIsOneLineNamingItsLineAndExit2UnlessIgnored() async throws {
        try await withConfig("# mine\nmode = \"blocks\"\nretry = \"three\"\n") { environment, file in
            let result = try await ImgviewProcess.run(["list"], environment: environment)
            #expect(result.status == 2)
            #expect(
                result.errorLine == "imgview: \(file.path):3: retry: a string, where a whole number goes (--no-config ignores the file)")
            #expect(result.stdout.isEmpty)
            let ignored = try await ImgviewProcess.run(["list", "--no-config"], environment: environment)
            #expect(ignored.status == 0, "\(ignored.stderr)")
            var skipping = environment
            skipping["IMGVIEW_NO_CONFIG"] = "1"
            #expect(try await ImgviewProcess.run(["list"], environment: skipping).status == 0)
            // --help and --version never read it.
            #expect(try await ImgviewProcess.run(["--version"], environment: environment).status == 0)
            #expect(try await ImgviewProcess.run(["show", "--help"], environment: environment).status == 0)
        }
        try await withConfig("mode = \"blocks\"\n[keys]\nnext = \"n\"\nprevious = [\"n\"]\n") { environment, file in
            let result = try await ImgviewProcess.run(["config"], environment: environment)
            #expect(result.status == 2)
            #expect(
                result.errorLine
                    == "imgview: \(file.path):4: keys: n is bound to both next on line 3 and previous (--no-config ignores the file)")
        }
    }
}
