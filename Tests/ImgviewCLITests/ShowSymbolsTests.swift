import Foundation
import Testing

/// `--symbols`, `IMGVIEW_SYMBOLS` and the config file's `symbols`, run as a process into a pipe
/// (where nothing is asked of a terminal, so `auto` is halves and quadrants).
@Suite("show --symbols and IMGVIEW_SYMBOLS, run as a process")
struct ShowSymbolsTests {
    static let image = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg").path
    static let halves: Set<Character> = ["▀", "▄", "▌", "▐"]
    /// U+2580–U+259F: halves, quadrants and eighths, in every monospace font.
    static let quadrants: Set<Character> = Set((0x2580...0x259F).map { Character(Unicode.Scalar($0)!) })

    /// The characters drawn, escape sequences and line ends left out.
    static func characters(_ output: String) -> Set<Character> {
        var text = output
        while let start = text.range(of: "\u{1B}["), let end = text[start.upperBound...].firstIndex(of: "m") {
            text.removeSubrange(start.lowerBound...end)
        }
        return Set(text).subtracting(["\n", " ", "█"])
    }

    static func hasSextants(_ output: String) -> Bool {
        output.unicodeScalars.contains { (0x1FB00...0x1FB3B).contains($0.value) }
    }

    @Test func blocksDefaultToHalvesAndQuadrants() async throws {
        let result = try await ImgviewProcess.run(["show", Self.image, "--mode", "blocks", "--size", "40x14", "--colors", "full"])
        #expect(result.status == 0 && result.stderr.isEmpty)
        let drawn = Self.characters(result.stdout)
        #expect(drawn.isSubset(of: Self.quadrants), "\(drawn.subtracting(Self.quadrants))")
        #expect(!drawn.subtracting(Self.halves).isEmpty, "more than halves are used")
        // auto into a pipe is blocks too, with the same set.
        let auto = try await ImgviewProcess.run(["show", Self.image, "--size", "40x14", "--colors", "256"])
        #expect(Self.characters(auto.stdout).isSubset(of: Self.quadrants) && !Self.hasSextants(auto.stdout))
    }

    @Test func eachSetIsDrawnWhenAskedFor() async throws {
        let base = ["show", Self.image, "--mode", "blocks", "--size", "40x14", "--colors", "full"]
        let sextant = try await ImgviewProcess.run(base + ["--symbols", "sextant"])
        #expect(sextant.status == 0 && Self.hasSextants(sextant.stdout))
        let block = try await ImgviewProcess.run(base + ["--symbols", "block"])
        #expect(Self.characters(block.stdout).isSubset(of: Self.halves), "\(Self.characters(block.stdout))")
        let quad = try await ImgviewProcess.run(base + ["--symbols", "quad"], environment: ["IMGVIEW_SYMBOLS": "sextant"])
        #expect(!Self.hasSextants(quad.stdout), "the option wins over the environment")
        let environment = try await ImgviewProcess.run(base, environment: ["IMGVIEW_SYMBOLS": "SEXTANT"])
        #expect(Self.hasSextants(environment.stdout))
        // ascii: characters instead of blocks, colours kept.
        let ascii = try await ImgviewProcess.run(["show", Self.image, "--size", "40x14", "--colors", "full", "--symbols", "ascii"])
        #expect(ascii.status == 0 && ascii.stdout.contains("\u{1B}[38;2;"))
        let asciiDrawn = Self.characters(ascii.stdout)
        #expect(asciiDrawn.allSatisfy { $0.isASCII }, "\(asciiDrawn)")
        // A pixel mode asked for is not changed by the symbols.
        let sixel = try await ImgviewProcess.run(["show", Self.image, "--mode", "sixel", "--size", "20x6", "--symbols", "ascii"])
        #expect(sixel.stdout.hasPrefix("\u{1B}P0;1;0q"))
    }

    @Test func anUnknownSetIsAUsageError() async throws {
        let environment = try await ImgviewProcess.run(["show", Self.image], environment: ["IMGVIEW_SYMBOLS": "braille\u{1B}[2J"])
        #expect(environment.status == 2)
        #expect(environment.errorLine == "imgview: IMGVIEW_SYMBOLS=braille?[2J is not a symbol set (auto, block, quad, sextant or ascii)")
        for arguments in [["show", Self.image], ["browse", Self.image]] {
            let option = try await ImgviewProcess.run(arguments + ["--symbols", "braille"])
            #expect(option.status == 2 && option.stderr.contains("--symbols"), "\(arguments): \(option.stderr)")
        }
    }

    @Test func theConfigFileSetsTheDefault() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("imgview/config.toml")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("symbols = \"sextant\"\n".utf8).write(to: file)
        let environment = ["XDG_CONFIG_HOME": folder.path, "HOME": folder.path]
        let shown = try await ImgviewProcess.run(["show", Self.image, "--mode", "blocks", "--size", "40x14"], environment: environment)
        #expect(shown.status == 0 && Self.hasSextants(shown.stdout))
        let config = try await ImgviewProcess.run(["config"], environment: environment)
        #expect(config.stdout.contains("symbols\tsextant\tconfig.toml:1\n"), "\(config.stdout)")
        try Data("symbols = \"braille\"\n".utf8).write(to: file)
        let bad = try await ImgviewProcess.run(["show", Self.image], environment: environment)
        #expect(bad.status == 2 && bad.stderr.contains("symbols"), "\(bad.stderr)")
    }
}
