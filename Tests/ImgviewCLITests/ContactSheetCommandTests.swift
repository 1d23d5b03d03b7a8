import Foundation
import ImgviewCodecs
import ImgviewImaging
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

    @Test func aFileThatFailedBeforeIsNotDecodedAgainAndStillSaysWhy() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try Data(contentsOf: folder.appendingPathComponent(Self.images[2]))
        try png.prefix(3_000).write(to: folder.appendingPathComponent("cut.png"))
        let sheet = ["--grid", "2x1", "--label", "--size", "41x8", "--mode", "ascii", "--colors", "none", Self.images[0], "cut.png"]
        let reason = "cut.png: truncated PNG image: the data ends before any pixel"
        let first = try await run(sheet, in: folder)
        #expect(first.status == 1, "some failed")
        #expect(first.stderr.contains(reason + "\n"), "\(first.stderr)")
        let markers = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/.cache/thumbnails/fail/imgview-0.1.0")
        #expect(markers.count == 1, "the standard's failure marker, for file managers and the next run")
        let second = try await run(sheet, in: folder)
        #expect(second.status == 1)
        #expect(second.stderr.contains(reason + " (found before, and the file has not changed since)"), "\(second.stderr)")
        let labels = { (output: String) in output.split(separator: "\n").last.map(String.init) ?? "" }
        #expect(labels(first.stdout).contains("✗ cut.png"))
        #expect(labels(second.stdout) == labels(first.stdout), "its cell marked the same")
    }

    @Test func autoFillsTheWidthAndThumbnailsAreSharedWithTheBrowser() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sheet = ["--grid", "auto", "--size", "120x30", "--mode", "blocks", "--colors", "full"] + names
        let result = try await run(sheet, in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let first = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(visible(first).count > 80, "4 cells of about 256 px across 120 columns")
        // Thumbnails of the images (all larger than 256 px) are in the shared folder now.
        let large = folder.path + "/.cache/thumbnails/large"
        let made = try FileManager.default.contentsOfDirectory(atPath: large).filter { $0.hasSuffix(".png") }
        #expect(made.count == 4)
        // The same sheet again comes from them: the same cells, the same lines. Its
        // colours are the thumbnails' (the first sheet's came from pixels decoded at a DCT scale,
        // more of them than a thumbnail keeps), and from then on the sheet is the same each time.
        let again = try await run(sheet, in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        let shape = { (output: String) in output.split(separator: "\n", omittingEmptySubsequences: false).map { visible(String($0)).count }
        }
        #expect(shape(again.stdout) == shape(result.stdout))
        let third = try await run(sheet, in: folder)
        #expect(third.stdout == again.stdout, "made from the same thumbnails, the same sheet")

        // The coffee's thumbnail painted green, its keys kept (still valid for the file): the next
        // sheet draws the green, so it is drawn from the lasting thumbnail, not from the image.
        let green = "\u{1B}[38;2;0;255;0"
        #expect(!result.stdout.contains(green))
        let coffee = try #require(
            made.first { name in
                let data = try? Data(contentsOf: URL(fileURLWithPath: large + "/" + name))
                return data.map(Self.texts)?["Thumb::URI"]?.hasSuffix("/04_coffee.png") == true
            })
        let path = URL(fileURLWithPath: large + "/" + coffee)
        let original = try Data(contentsOf: path)
        let pixels = try #require(FreedesktopThumbnails.decode(original))
        let keys = Self.texts(original)
        #expect(keys["Thumb::MTime"] != nil && keys["Thumb::Size"] != nil)
        let painted = try #require(
            FreedesktopThumbnails.encode(
                PixelBuffer(width: pixels.width, height: pixels.height, filledWith: (0, 255, 0, 255)),
                texts: keys.sorted { $0.key < $1.key }
                    .map { ($0.key, $0.value) }))
        try painted.write(to: path)
        let painting = try await run(sheet, in: folder)
        #expect(painting.status == 0, "\(painting.stderr)")
        let lines = painting.stdout.split(separator: "\n").map(String.init)
        // The third cell (29 columns a cell, one between) of the image lines: one run of green
        // a line (a run of one colour is one escape), there and nowhere else.
        let greenLines = lines.filter { $0.contains(green) }
        #expect(greenLines.count >= 5, "the painted thumbnail is drawn: \(painting.stdout)")
        for line in greenLines {
            #expect(line.components(separatedBy: green).count == 2)
            let before = visible(String(line[..<line.range(of: green)!.lowerBound]))
            #expect((2 * 30..<3 * 30).contains(before.count), "in the third cell: \(before.count) columns before it")
        }
        #expect(painting.stdout != result.stdout)
    }

    @Test(arguments: ["sixel", "iterm"])
    func pixelSheetsIntoAPipeDrawEachImageOnceAndContinueInTheNextSheet(mode: String) async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let three = [names[0], names[2], names[3]]
        let result = try await run(["--grid", "2x1", "--size", "60x14", "--mode", mode, "--label"] + three, in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let output = result.stdout
        // One picture an image: a sixel DCS (ESC P params q … ESC \), or an iTerm2 OSC 1337 File=.
        let picture =
            mode == "sixel"
            ? "\u{1B}P[0-9;]*q[^\u{1B}]*\u{1B}\\\\" : "\u{1B}\\]1337;File=[^:]*inline=1[^:]*:[A-Za-z0-9+/=]+(\u{07}|\u{1B}\\\\)"
        let pictures = output.matches(of: try Regex(picture))
        #expect(pictures.count == 3, "\(pictures.count) pictures")
        #expect(output.components(separatedBy: mode == "sixel" ? "\u{1B}P" : "\u{1B}]1337;File=").count == 4, "and no other")
        guard pictures.count == 3 else { return }
        // The first sheet's two pictures, its label line, a blank line, then the second sheet.
        let firstLabels = try #require(output.range(of: "01_grace_hopper.jpg"))
        let secondLabels = try #require(output.range(of: "09_cups_progressive.jpg"))
        #expect(pictures[1].range.upperBound < firstLabels.lowerBound)
        #expect(firstLabels.upperBound < pictures[2].range.lowerBound && pictures[2].range.upperBound < secondLabels.lowerBound)
        let labelLine = output[firstLabels.lowerBound...].prefix { $0 != "\n" }
        #expect(labelLine.contains("04_coffee.png"), "both names on the first sheet's label line")
        let afterLabels = output[labelLine.endIndex...]
        #expect(afterLabels.hasPrefix("\n\n"), "a blank line between the sheets")
        #expect(output.hasSuffix("09_cups_progressive.jpg\n"))
        // Into a pipe: cursor moves only within the rows the sheet reserved, nothing positioned absolutely.
        #expect(output.range(of: "\u{1B}\\[[0-9]+;[0-9]+H", options: .regularExpression) == nil)
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

    /// The tEXt chunks of a PNG, as keys and values.
    static func texts(_ data: Data) -> [String: String] {
        let bytes = [UInt8](data)
        var texts: [String: String] = [:]
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard offset + 12 + length <= bytes.count else { break }
            let body = bytes[(offset + 8)..<(offset + 8 + length)]
            if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == "tEXt", let zero = body.firstIndex(of: 0) {
                texts[String(decoding: body[..<zero], as: UTF8.self)] = String(decoding: body[(zero + 1)...], as: UTF8.self)
            }
            offset += 12 + length
        }
        return texts
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
