import Foundation
import ImgviewTestSupport
import Testing

/// `show` and `info` with several images and with `-` (standard input), run as a process.
@Suite("show and info with several images and standard input")
struct SeveralImagesCommandTests {
    /// Runs `imgview ARGUMENTS` with `input` piped into its standard input (a pipe, not a file).
    func run(_ arguments: [String], input: String) async throws -> ImgviewProcess.Result {
        try await ImgviewProcess.run(
            ["-c", "cat \"$INPUT\" | \"$IMGVIEW\" \"$@\"", "sh"] + arguments, executable: URL(fileURLWithPath: "/bin/sh"),
            environment: ["INPUT": input, "IMGVIEW": ImgviewProcess.binary.path])
    }

    @Test func showPrintsEachImageUnderItsNameAndGoesOnPastAFailure() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let notes = folder.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notes)
        let result = try await ImgviewProcess.run([
            "show", Fixtures.path("photo.jpg"), notes.path, Fixtures.path("rgb.png"), "--size", "20x5", "--colors", "none",
        ])
        #expect(result.status == 1, "some failed")
        #expect(result.stdout.hasPrefix("==> \(Fixtures.path("photo.jpg")) <==\n"))
        #expect(result.stdout.contains("\n==> \(Fixtures.path("rgb.png")) <==\n"))
        #expect(!result.stdout.contains("notes.txt"))
        #expect(result.stderr == "imgview: \(notes.path): not an image\n")
        let allFailed = try await ImgviewProcess.run(["show", notes.path, "/nonexistent/x.png"])
        #expect(allFailed.status == 7, "the first failure's code when every image failed")
        #expect(allFailed.stderr.split(separator: "\n").count == 2)
    }

    @Test func showAndInfoReadStandardInput() async throws {
        let shown = try await run(["show", "-", "--size", "20x5", "--colors", "none"], input: Fixtures.path("photo.png"))
        #expect(shown.status == 0, "\(shown.stderr)")
        let direct = try await ImgviewProcess.run(["show", Fixtures.path("photo.png"), "--size", "20x5", "--colors", "none"])
        #expect(shown.stdout == direct.stdout && !shown.stdout.isEmpty)
        let info = try await run(["info", "-", Fixtures.path("rgb.png"), "--json"], input: Fixtures.path("orient6.jpg"))
        #expect(info.status == 0)
        let objects = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [[String: Any]]
        #expect(objects?.count == 2)
        #expect(objects?.first?["source"] as? String == "standard input")
        #expect(objects?.first?["origin"] as? String == "stdin")
        #expect(objects?.first?["width"] as? Int == 16)
        #expect(objects?.last?["format"] as? String == "PNG")
        let text = try await run(["info", "-"], input: Fixtures.path("rgb.png"))
        #expect(text.stdout.contains("source      standard input"))
        let notAnImage = try await run(["show", "-"], input: "/etc/hostname")
        #expect(notAnImage.status == 7)
        #expect(notAnImage.stderr == "imgview: standard input: not an image\n")
        // Standard input reaches the pipeline, never the cache.
        let cache = try await ImgviewProcess.run(["cache", "ls"])
        #expect(!cache.stdout.contains("stdin"))
    }

    @Test func severalImagesInKittysModeEachHaveAnImageIdOfTheirOwn() async throws {
        // The same id again would replace the first image on the terminal, taking it off the screen.
        let result = try await run(
            ["show", Fixtures.path("photo.jpg"), "-", "--size", "20x5", "--mode", "kitty"], input: Fixtures.path("rgb.png"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("==> \(Fixtures.path("photo.jpg")) <==\n\u{1B}_Ga=T,i=1,q=2,f=24,"))
        #expect(result.stdout.contains("\u{1B}\\\n==> standard input <==\n\u{1B}_Ga=T,i=2,q=2,f=24,"))
    }

    @Test func standardInputIsReadOnce() async throws {
        let twice = try await ImgviewProcess.run(["show", "-", "-"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("- can be given once"))
        let none = try await ImgviewProcess.run(["info"])
        #expect(none.status == 2)
        let browse = try await ImgviewProcess.run(["browse", "-"])
        #expect(browse.status == 2)
        #expect(browse.stderr.contains("use 'imgview show -'"))
    }
}
