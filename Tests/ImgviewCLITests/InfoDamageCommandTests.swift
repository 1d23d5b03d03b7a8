import Foundation
import ImgviewTestSupport
import Testing

/// `info` of a file cut short: described as far as it reads, with a `damaged` line, `"damage"` in
/// JSON and a warning on stderr, where it used to say nothing (issue 30).
@Suite("info tells damage")
struct InfoDamageCommandTests {
    /// (A HEIC cut this short is refused by libheif at its header: one line, exit 7, as before.)
    @Test(arguments: [("anim.gif", "GIF"), ("anim.webp", "WebP"), ("photo.jpg", "JPEG"), ("hopper.png", "PNG"), ("slideshow.avif", "AVIF")])
    func aCutFileIsDescribedAndSaidToBeDamaged(name: String, format: String) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = try Fixtures.data(name)
        let cut = folder.appendingPathComponent("cut-" + name)
        try bytes.prefix(bytes.count * 7 / 10).write(to: cut)

        let text = try await ImgviewProcess.run(["info", cut.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("format      \(format)\n"), "\(text.stdout)")
        let damaged = "truncated: the file ends inside its \(format) structure, so only part of the image is there"
        #expect(text.stdout.contains("damaged     \(damaged)\n"), "\(text.stdout)")
        #expect(text.stderr == "imgview: \(cut.path): warning: damaged: \(damaged)\n")

        let json = try await ImgviewProcess.run(["info", "--json", cut.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["damage"] as? String == damaged)

        let whole = try await ImgviewProcess.run(["info", "--json", Fixtures.path(name)])
        let wholeObject = try #require(try JSONSerialization.jsonObject(with: Data(whole.stdout.utf8)) as? [String: Any])
        #expect(wholeObject["damage"] is NSNull && whole.stderr.isEmpty)
        let wholeText = try await ImgviewProcess.run(["info", Fixtures.path(name)])
        #expect(!wholeText.stdout.contains("damaged"))
    }
}
