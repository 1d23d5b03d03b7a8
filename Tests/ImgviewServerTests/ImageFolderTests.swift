import Foundation
import ImgviewServer
import Testing

/// `serve` publishes every file it recognises as an image, by its bytes, with the right type.
@Suite("Serving a folder of images")
struct ImageFolderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImgviewCodecsTests/Fixtures")

    @Test func everyRecognisedFormatIsServedAndNothingElse() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgview-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["q.tif", "anim.gif", "q-alpha.webp", "anim.avif", "q-24.bmp", "q.ico"] {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        // Names do not matter, bytes do: an SVG without an extension is served, a page called .png is not.
        let svg = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<!-- drawn by hand -->\n" + #"<svg xmlns="http://www.w3.org/2000/svg"/>"#
        try Data(svg.utf8).write(to: folder.appendingPathComponent("drawing"))
        try Data("<html><svg></svg></html>".utf8).write(to: folder.appendingPathComponent("page.png"))

        let entries = try ImageFolder(directory: folder).entries
        let served = Dictionary(uniqueKeysWithValues: entries.map { ($0.fileName, $0.format.mimeType) })
        #expect(
            served == [
                "anim.avif": "image/avif", "anim.gif": "image/gif", "drawing": "image/svg+xml", "q-24.bmp": "image/bmp",
                "q-alpha.webp": "image/webp", "q.ico": "image/vnd.microsoft.icon", "q.tif": "image/tiff",
            ])
    }
}
