import Foundation
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// JSON output carries no character that could drive a terminal or reorder text.
@Suite("JSON text")
struct JSONTextTests {
    static let hostile = "a\u{1B}[2J b\u{9B}31m c\u{202E}gpj.exe d\u{2066}e\u{7F}f\u{2028}"

    @Test func stringsEscapeC0C1DelSeparatorsAndBidi() throws {
        let literal = JSONText.string(Self.hostile)
        #expect(literal == "\"a\\u001b[2J b\\u009b31m c\\u202egpj.exe d\\u2066e\\u007ff\\u2028\"")
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
        #expect(decoded == [Self.hostile])
    }

    /// `list --json` writes the catalog with JSONEncoder; titles come from anyone.
    @Test func catalogJSONEscapesTheSame() throws {
        let image = AppImage(name: "a", title: Self.hostile, url: URL(string: "http://h/a.jpg")!)
        let data = Catalog(images: [image], origin: .builtIn).jsonData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { $0.value >= 0x7F && $0.value <= 0x9F || TerminalText.isUnsafe($0) && $0 != "\n" })
        #expect(text.contains("\\u009b") && text.contains("\\u202e"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let title = ((object?["images"] as? [[String: Any]])?.first?["title"]) as? String
        #expect(title == Self.hostile)
    }

    @Test func binarySizesReadAsTyped() {
        #expect(ByteCount.formatBinary(1 << 30) == "1 GiB")
        #expect(ByteCount.formatBinary(500 << 20) == "500 MiB")
        #expect(ByteCount.formatBinary(3 << 29) == "1.5 GiB")
        #expect(ByteCount.formatBinary(512) == "512 B")
    }
}
