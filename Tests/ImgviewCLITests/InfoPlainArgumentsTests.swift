import ArgumentParser
import Foundation
import ImgviewSupport
import ImgviewTestSupport
import Testing

@testable import imgview

/// `info` given only images is made without ArgumentParser (for start-up): it must be the very
/// command the parser makes, and everything else must still go to the parser.
@Suite("info without the parser")
struct InfoPlainArgumentsTests {
    @Test(arguments: [["a.png"], ["a.png", "b b.jpg", "-"], ["image0", "https://example.com/x.png", "file:///tmp/x.gif"]])
    func madeAsTheParserMakesIt(images: [String]) throws {
        let plain = try #require(Imgview.Info.withPlainArguments(images))
        let parsed = try #require(try Imgview.Info.parseAsRoot(images) as? Imgview.Info)
        // Every property wrapper prints its value; one the parser never set prints *definition*.
        #expect(String(describing: plain) == String(describing: parsed))
        #expect(!String(describing: plain).contains("*definition*"), "\(plain)")
    }

    @Test func anythingElseIsLeftToTheParser() {
        let others: [[String]] = [
            [], ["--json", "a.png"], ["a.png", "-h"], ["help"], ["a.png", "help"], ["-", "-"], ["--", "a.png"], ["a.png", "--offline"],
            ["a.png", "--generate-completion-script", "bash"],
        ]
        for arguments in others {
            #expect(Imgview.Info.withPlainArguments(arguments) == nil, "\(arguments)")
        }
    }

    @Test func theOutputIsTheParsedCommands() async throws {
        let image = Fixtures.path("hopper.png")
        let plain = try await ImgviewProcess.run(["info", image])
        // `--` sends the same images through the parser.
        let parsed = try await ImgviewProcess.run(["info", "--", image])
        #expect(plain.status == 0 && plain.stdout == parsed.stdout && plain.stderr == parsed.stderr, "\(plain) \(parsed)")
        // A bad size in the environment is the parser's usage error, as before.
        let bad = try await ImgviewProcess.run(["info", image], environment: ["IMGVIEW_CACHE_SIZE": "lots"])
        #expect(bad.status == ExitStatus.usage.rawValue)
        #expect(bad.stderr.contains("IMGVIEW_CACHE_SIZE: \"lots\" is not a size"), "\(bad.stderr)")
        #expect(bad.stderr.contains("Usage: imgview info"), "\(bad.stderr)")
    }
}
