import Foundation
import ImgviewTestSupport
import Testing

@Suite("show and info, run as a process")
struct ShowInfoCommandTests {
    func temporaryFile(_ bytes: [UInt8], name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imgview-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test func showPrintsAPreviewFittedToTheBox() async throws {
        let result = try await ImgviewProcess.run([
            "show", Fixtures.path("photo.jpg"), "--size", "40x10", "--mode", "ascii", "--colors", "none",
        ])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // 128×96 in a 40×10 box with 1:2 cells: 10 rows of 27 columns.
        #expect(lines.count == 10 && lines.allSatisfy { $0.count == 27 })
        #expect(!result.stdout.contains("\u{1B}"), "no colour escapes with --colors none")
    }

    @Test func showInTruecolorUsesRGBEscapes() async throws {
        let result = try await ImgviewProcess.run([
            "show", Fixtures.path("rgb.png"), "--size", "16x6", "--mode", "blocks", "--colors", "full",
        ])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\u{1B}[38;2;") || result.stdout.contains("\u{1B}[48;2;"))
        #expect(result.stdout.hasSuffix("\u{1B}[0m\n"))
    }

    @Test func noColorTurnsAutoColoursOff() async throws {
        let result = try await ImgviewProcess.run(
            ["show", Fixtures.path("rgb.png"), "--size", "16x6"], environment: ["NO_COLOR": "1", "COLORTERM": "truecolor"])
        #expect(result.status == 0 && !result.stdout.contains("\u{1B}"))
    }

    @Test func showAcceptsFileURLs() async throws {
        let result = try await ImgviewProcess.run(["show", "file://" + Fixtures.path("orient6.jpg"), "--size", "8x4", "--colors", "none"])
        #expect(result.status == 0 && !result.stdout.isEmpty)
    }

    @Test func showReadsCatalogNamesWithFileURLs() async throws {
        let catalog = #"{"images": [{"name": "cat", "url": "file://\#(Fixtures.path("rgb.jpg"))"}]}"#
        let path = try temporaryFile(Array(catalog.utf8), name: "catalog.json")
        let result = try await ImgviewProcess.run(["--catalog", path, "show", "cat", "--size", "8x4", "--colors", "none"])
        #expect(result.status == 0 && !result.stdout.isEmpty)
        let unknown = try await ImgviewProcess.run(["--catalog", path, "show", "dog"])
        #expect(unknown.status == 4)
        #expect(unknown.stderr == "imgview: no image called \"dog\" in the catalog and no such file (known: cat; see 'imgview list')\n")
    }

    @Test func infoReportsHeaderFacts() async throws {
        let result = try await ImgviewProcess.run(["info", Fixtures.path("orient6.jpg")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("JPEG"))
        #expect(result.stdout.contains("16×12 (stored 12×16)"))
        #expect(result.stdout.contains("6 (rotated"))
    }

    @Test func infoJSONIsMachineReadable() async throws {
        let result = try await ImgviewProcess.run(["info", Fixtures.path("rgb.png"), "--json"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["format"] as? String == "PNG")
        #expect(object?["width"] as? Int == 16)
        #expect((object?["sha256"] as? String)?.count == 64)
        #expect(object?["cache_state"] as? String == "not cached")
    }

    @Test func missingFileIsNotFound() async throws {
        let result = try await ImgviewProcess.run(["show", "/nonexistent/dir/photo.jpg"])
        #expect(result.status == 4)
        #expect(result.stderr.hasPrefix("imgview: ") && result.stderr.filter { $0 == "\n" }.count == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test func badImagesExitWithStatus7AndOneLine() async throws {
        let cases: [([UInt8], String, String)] = [
            ([], "empty.jpg", "not an image"),
            (Array("<html>oops</html>".utf8), "page.png", "not an image"),
            ([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0, 0], "scan.tif", "truncated TIFF image"),
            (Array("GIF89a\u{1}\0\u{1}\0\0\0\0".utf8), "cut.gif", "truncated GIF image"),
        ]
        for (bytes, name, expected) in cases {
            let path = try temporaryFile(bytes, name: name)
            let result = try await ImgviewProcess.run(["show", path])
            #expect(result.status == 7, "\(name)")
            #expect(result.stderr.hasPrefix("imgview: ") && result.stderr.contains(expected), "\(name): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let bomb = try await ImgviewProcess.run(["show", Fixtures.path("bomb.png")])
        #expect(bomb.status == 7 && bomb.stderr.contains("image too large"))
        let info = try await ImgviewProcess.run(["info", try temporaryFile([1, 2, 3], name: "x.jpg")])
        #expect(info.status == 7)
    }

    @Test func truncatedImageShowsWithAWarning() async throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("photo.jpg"))))
        let path = try temporaryFile(Array(bytes.prefix(bytes.count * 6 / 10)), name: "cut.jpg")
        let result = try await ImgviewProcess.run(["show", path, "--size", "20x5", "--colors", "none"])
        #expect(result.status == 0)
        #expect(!result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("imgview: ") && result.stderr.contains("truncated"))
    }

    @Test func escapeSequencesInNamesAreNotPrinted() async throws {
        let result = try await ImgviewProcess.run(["show", "/tmp/\u{1B}]0;pwned\u{07}.jpg"])
        #expect(result.status == 4)
        #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{07}"))
    }

    @Test func badOptionValuesAreUsageErrors() async throws {
        #expect(try await ImgviewProcess.run(["show", Fixtures.path("rgb.png"), "--size", "80by24"]).status == 2)
        #expect(try await ImgviewProcess.run(["show", Fixtures.path("rgb.png"), "--colors", "lots"]).status == 2)
    }
}
