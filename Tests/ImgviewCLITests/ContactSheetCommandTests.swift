import Foundation
import ImgviewTestSupport
import Testing

/// `show --grid`: contact sheets into a pipe (text, line by line, no cursor movement) and in
/// pixels, labels cut by display width, sheets that continue, failures, and the thumbnails shared
/// with the browser's grid.
@Suite("show --grid: contact sheets")
struct ContactSheetCommandTests {
    static let images = ["01_grace_hopper.jpg", "03_chelsea_cat.png", "04_coffee.png", "09_cups_progressive.jpg"]

    /// A folder with the repository's photos (one under a long name with wide characters) and
    /// its own thumbnail folder.
    func makeFolder() throws -> URL {
        let folder = try makeTemporaryDirectory()
        for (index, name) in Self.images.enumerated() {
            let target = index == 1 ? "猫の写真をたくさん撮りました-chelsea.png" : name
            try FileManager.default.copyItem(
                at: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/" + name), to: folder.appendingPathComponent(target)
            )
        }
        return folder
    }

    func run(_ arguments: [String], in folder: URL) async throws -> ImgviewProcess.Result {
        try await ImgviewProcess.run(
            ["show"] + arguments,
            environment: ["XDG_CACHE_HOME": folder.path + "/.cache", "IMGVIEW_CACHE_DIR": folder.path + "/.cache/imgview"],
            directory: folder)
    }

    var names: [String] { [Self.images[0], "猫の写真をたくさん撮りました-chelsea.png", Self.images[2], Self.images[3]] }

    @Test func aTextSheetIsWrittenLineByLineWithNamesUnderTheImages() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await run(
            ["--grid", "2x2", "--label", "--size", "61x24", "--mode", "blocks", "--colors", "256"] + names, in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        // 2 rows of cells, each 10 image lines and a label line ((24 + 1) / 2 - 2); 30 columns a cell, one between.
        #expect(lines.count == 2 * 11 + 1 && lines.last == "")
        #expect(!result.stdout.contains("\u{1B}[A") && !result.stdout.contains("\u{1B}7"), "no cursor movement into a pipe")
        guard lines.count == 23 else { return }
        let labels = [lines[10], lines[21]].map(String.init)
        #expect(labels[0].contains("01_grace_hopper.jpg"))
        #expect(labels[0].contains("…"), "the long name is cut in the middle")
        #expect(labels[0].hasSuffix("chelsea.png"), "keeping its end")
        #expect(labels[1].contains("04_coffee.png") && labels[1].contains("09_cups_progressive.jpg"))
        for label in labels { #expect(displayWidth(label) <= 61) }
        // Each image line is at most the sheet's width in characters, once the colours are taken out.
        for line in lines[0..<10] { #expect(visible(String(line)).count <= 61) }
        #expect(lines[5].contains("\u{1B}[38;5;"), "colours")
    }

    @Test func moreImagesThanCellsContinueInTheNextSheetAndAFailureIsACell() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("no image here".utf8).write(to: folder.appendingPathComponent("notes.png"))
        let result = try await run(
            ["--grid", "2x1", "--label", "--size", "41x8", "--mode", "ascii", "--colors", "none"] + names + ["notes.png"], in: folder)
        #expect(result.status == 1, "some failed")
        #expect(result.stderr.contains("notes.png") && result.stderr.contains("not an image"))
        let sheets = result.stdout.components(separatedBy: "\n\n")
        #expect(sheets.count == 3, "2 + 2 + 1 images: three sheets")
        #expect(sheets[2].contains("✗ notes.png"))
    }

    @Test func autoFillsTheWidthAndThumbnailsAreSharedWithTheBrowser() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await run(["--grid", "auto", "--size", "120x30", "--mode", "blocks"] + names, in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let first = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(visible(first).count > 80, "4 cells of about 256 px across 120 columns")
        // Thumbnails of the three images larger than 256 px are in the shared folder now, valid for GLib.
        let large = folder.path + "/.cache/thumbnails/large"
        let made = try FileManager.default.contentsOfDirectory(atPath: large).filter { $0.hasSuffix(".png") }
        #expect(made.count >= 3)
        // The same sheet again comes from them, and is the same.
        let again = try await run(["--grid", "auto", "--size", "120x30", "--mode", "blocks"] + names, in: folder)
        #expect(again.stdout.count > 0 && again.status == 0)
    }

    @Test func kittySheetsPlaceEachImageWithItsOwnId() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await run(["--grid", "2x1", "--size", "60x14", "--mode", "kitty", "--label"] + Array(names.prefix(2)), in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("i=1,") || result.stdout.contains("i=1;"))
        #expect(result.stdout.contains("i=2,") || result.stdout.contains("i=2;"))
        #expect(
            result.stdout.contains("\u{1B}7") && result.stdout.contains("\u{1B}8"), "each cell drawn with the cursor saved and restored")
        #expect(result.stdout.range(of: "\u{1B}\\[[0-9]+C", options: .regularExpression) != nil, "the second cell moved to the right")
        #expect(result.stdout.contains("01_grace_hopper.jpg"))
    }

    /// The text without SGR escapes.
    func visible(_ line: String) -> String {
        line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }

    func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) {
            $0 + (($1.value >= 0x1100 && $1.value <= 0x9FFF) || ($1.value >= 0xFF00 && $1.value <= 0xFFEF) ? 2 : 1)
        }
    }
}
