import Foundation
import Testing

@testable import ImgviewConfig

/// The config file: TOML read with TOMLKit, every value with its line, and each kind of mistake
/// one message naming the line.
@Suite("Config file")
struct ConfigFileTests {
    func parse(_ text: String) throws(ConfigError) -> ConfigFile {
        try ConfigFile.parse(Array(text.utf8), path: "/home/me/.config/imgview/config.toml")
    }

    /// The error a text makes, read and checked.
    func error(_ text: String) -> ConfigError? {
        error(Array(text.utf8))
    }

    func error(_ bytes: [UInt8]) -> ConfigError? {
        do {
            try ConfigSchema.validate(try ConfigFile.parse(bytes, path: "c.toml"))
            return nil
        } catch {
            return error
        }
    }

    @Test func settingsAndKeysComeWithTheirLines() throws {
        let file = try parse(
            """
            # mine
            mode = "blocks"
            "cell-aspect" = 2.25
            retry = 2
            offline = true

            [keys]
            next = ["n", "Right"]
              mark = 't'   # indented, single quotes
            """)
        try ConfigSchema.validate(file)
        #expect(file.entry("mode") == .init(table: nil, name: "mode", value: .string("blocks"), line: 2))
        #expect(file.entry("cell-aspect")?.value == .number(2.25))
        #expect(file.entry("cell-aspect")?.line == 3)
        #expect(file.entry("retry")?.value == .integer(2))
        #expect(file.entry("offline")?.value == .boolean(true))
        let keys = file.entries.filter { $0.table == "keys" }
        #expect(keys.map(\.name) == ["next", "mark"])
        #expect(keys.map(\.line) == [8, 9])
        #expect(keys[0].value == .strings(["n", "Right"]))
        // A dotted key and an empty file.
        let dotted = try parse("keys.quit = \"Q\"\n")
        #expect(dotted.entries == [.init(table: "keys", name: "quit", value: .string("Q"), line: 1)])
        #expect(try parse("").entries.isEmpty)
    }

    @Test func eachKindOfMistakeNamesTheFileTheLineAndTheProblem() {
        let cases: [(String, Int?, String)] = [
            ("mode = \"sixel\"\nmode = \"blocks\"\n", 2, "cannot redefine existing string 'mode'"),
            ("mode = blocks\n", 1, "could not determine value type"),
            ("\n[keys]\nnext = \"n\"\n[keys]\n", 4, "cannot redefine existing table 'keys'"),
            ("mod = \"blocks\"\n", 1, "unknown setting \"mod\" (did you mean \"mode\"?)"),
            ("\n\nmode = \"pixels\"\n", 3, "mode: \"pixels\" is not one of auto, kitty, iterm, sixel, blocks, ascii"),
            ("cell-aspect = \"2\"\n", 1, "cell-aspect: a string, where a number goes"),
            ("cell-aspect = 9\n", 1, "cell-aspect: 9 is out of range (0.2 to 5)"),
            ("retry = 1.5\n", 1, "retry: a number, where a whole number goes"),
            ("jobs = 0\n", 1, "jobs: 0 is out of range (1 to 64)"),
            ("offline = \"yes\"\n", 1, "offline: a string, where true or false goes"),
            ("cache-size = \"lots\"\n", 1, "cache-size: \"lots\" is not a size (500M, 2G)"),
            ("background = \"red\"\n", 1, "background: \"red\" is not a colour (#rrggbb)"),
            ("sort = \"colour\"\n", 1, "sort: \"colour\" is not one of name, date, mtime, size, shuffle"),
            ("cache-dir = \"\"\n", 1, "cache-dir: empty"),
            ("user-agent = \"a\\nb\"\n", 1, "user-agent: a control character in one line of text"),
            ("mode = 1979-05-27\n", 1, "mode: a date, where one of \"auto\", \"kitty\", \"iterm\", \"sixel\", \"blocks\", \"ascii\" goes"),
            ("# ok\n[show]\nmode = \"blocks\"\n", 3, "unknown table [show] (only [keys] is known)"),
            ("[kyes]\nnext = \"n\"\n", 2, "unknown table [kyes] (did you mean [keys]?)"),
            ("[keys]\nnext = 3\n", 2, "keys.next: an integer, where a key name or a list of them goes (next = [\"l\", \"Right\"])"),
            (
                "[keys]\nnext = [\"n\", 3]\n", 2,
                "keys.next: an array of other things than strings, where a key name or a list of them goes (next = [\"l\", \"Right\"])"
            ),
        ]
        for (text, line, problem) in cases {
            let found = error(text)
            #expect(found?.line == line, "\(text)")
            #expect(found?.problem == problem, "\(text)")
        }
        #expect(error("mode = \"blocks\"\n")?.message == nil)
        let message = error("mod = 1\n")?.message
        #expect(message == "c.toml:1: unknown setting \"mod\" (did you mean \"mode\"?) (--no-config ignores the file)")
    }

    /// toml++ aborts on a key starting with neither a key character nor a quote (the fuzzer's
    /// `[, "D"]`); those are refused on their line first, and keys that are fine still read.
    @Test func aKeyThatStartsWithPunctuationIsAnErrorNotACrash() {
        let table = "a table's name must start with a letter, digit, _, - or a quote"
        #expect(error(Array("mode = \"blocks\"\n[, \"D\"]\n".utf8)) == ConfigError(path: "c.toml", line: 2, problem: table))
        #expect(error(Array("[[ .x]]\n".utf8))?.problem == table)
        #expect(error(Array("[keys.]\n".utf8))?.problem == "a dotted key needs a name after each dot")
        #expect(error(Array("keys. = 1\n".utf8))?.problem == "a dotted key needs a name after each dot")
        #expect(error(Array("[keys]\n\"a.b\" = \"x\"\n".utf8))?.problem != "a dotted key needs a name after each dot")
        // A comment may say anything, after a key or inside a list spread over lines.
        #expect(error(Array("# [, x] and ''' and a.\n[keys]\nnext = [\n  \"n\", # the next one.\n]\n".utf8)) == nil)
    }

    @Test func bytesThatAreNotTextAreFoundWhereTheyAre() {
        // TOMLKit would read a damaged file as an empty one; the bytes are checked first.
        let invalid = Array("mode = \"blocks\"\n\ncolors = \"".utf8) + [0xFF] + Array("\"\n".utf8)
        #expect(error(invalid) == ConfigError(path: "c.toml", line: 3, problem: "not UTF-8 text"))
        #expect(error(Array("mode = \"a\u{0}\"\n".utf8))?.problem == "a NUL byte (a config file is text)")
        // An overlong encoding and a lone surrogate are not UTF-8 either.
        #expect(error([0x23, 0xC0, 0xAF, 0x0A])?.problem == "not UTF-8 text")
        #expect(error([0x23, 0xED, 0xA0, 0x80, 0x0A])?.problem == "not UTF-8 text")
        #expect(error(Array("# café\nmode = \"blocks\"\n".utf8)) == nil)
        // Control characters TOML refuses, in its words.
        #expect(error(Array("mode = \"a\u{1}\"\n".utf8))?.line == 1)
    }

    @Test func aMissingFileIsNoFileAndAnUnreadableOneIsAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgview-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ConfigFile.load(path: folder.appendingPathComponent("none.toml").path) == nil)
        #expect(try ConfigFile.load(path: folder.appendingPathComponent("none/deeper.toml").path) == nil)
        let file = folder.appendingPathComponent("config.toml")
        try Data("retry = 1\n".utf8).write(to: file)
        #expect(try ConfigFile.load(path: file.path)?.entry("retry")?.value == .integer(1))
        #expect(throws: ConfigError(path: folder.path, line: nil, problem: "not a regular file")) { try ConfigFile.load(path: folder.path) }
        try Data(repeating: 0x23, count: ConfigFile.maxBytes + 1).write(to: file)
        #expect(throws: ConfigError(path: file.path, line: nil, problem: "larger than 1 MiB")) { try ConfigFile.load(path: file.path) }
    }

    @Test func theFileIsWhereXDGSays() {
        #expect(ConfigSchema.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/imgview/config.toml")
        #expect(ConfigSchema.path(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/imgview/config.toml")
        #expect(ConfigSchema.path(environment: [:]) == nil)
    }
}
