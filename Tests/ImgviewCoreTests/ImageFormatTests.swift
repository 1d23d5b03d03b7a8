import Foundation
import Testing

@testable import ImgviewImaging

/// Formats told from the first bytes: every one imgview keeps, and what must not pass for one.
@Suite("Image formats from signatures")
struct ImageFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImgviewCodecsTests/Fixtures")

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    /// An ISO media file's `ftyp` box with these brands.
    static func ftyp(major: String, compatible: [String]) -> [UInt8] {
        let payload = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        let size = UInt32(8 + payload.count)
        return withUnsafeBytes(of: size.bigEndian) { Array($0) } + Array("ftyp".utf8) + payload + Array(repeating: 0, count: 16)
    }

    @Test(arguments: [
        ("rgb.jpg", ImageFormat.jpeg), ("rgb.png", .png), ("q.gif", .gif), ("anim.gif", .gif), ("q-lossy.webp", .webp),
        ("anim.webp", .webp), ("q-8bit.avif", .avif), ("anim.avif", .avif), ("q-24.bmp", .bmp), ("q-32-alpha.bmp", .bmp),
        ("q.tif", .tiff), ("q.ico", .ico),
    ])
    func recognisesFilesRealToolsWrote(name: String, format: ImageFormat) throws {
        #expect(ImageFormat.sniff(try Self.fixture(name)) == format)
    }

    @Test func recognisesISOMediaBrands() {
        #expect(ImageFormat.sniff(Self.ftyp(major: "avif", compatible: ["mif1", "miaf"])) == .avif)
        #expect(ImageFormat.sniff(Self.ftyp(major: "avis", compatible: ["msf1"])) == .avif)
        // A generic HEIF major brand: the compatible brands decide.
        #expect(ImageFormat.sniff(Self.ftyp(major: "mif1", compatible: ["avif"])) == .avif)
        #expect(ImageFormat.sniff(Self.ftyp(major: "heic", compatible: ["mif1", "heic"])) == .heic)
        #expect(ImageFormat.sniff(Self.ftyp(major: "mif1", compatible: ["heic"])) == .heic)
        // Video is not an image, whatever box it starts with.
        #expect(ImageFormat.sniff(Self.ftyp(major: "isom", compatible: ["iso2", "mp41"])) == nil)
        #expect(ImageFormat.sniff(Self.ftyp(major: "qt  ", compatible: [])) == nil)
    }

    @Test func recognisesTheOtherSignatures() {
        #expect(ImageFormat.sniff([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) == .tiff)
        #expect(ImageFormat.sniff([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]) == .tiff)
        #expect(ImageFormat.sniff([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0]) == .tiff, "BigTIFF")
        #expect(ImageFormat.sniff([0xFF, 0x0A, 0xFA, 0x7F]) == .jxl, "a bare JPEG XL codestream")
        #expect(ImageFormat.sniff([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == .jxl, "the container")
        #expect(ImageFormat.sniff(Array("qoif".utf8) + [0, 0, 0, 16, 0, 0, 0, 12, 4, 0]) == .qoi)
    }

    @Test(arguments: [
        #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#,
        "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- Created with Inkscape -->\n<svg\n  width=\"10\">",
        #"<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg>"#,
        #"<!DOCTYPE svg [ <!ENTITY a "b"> ]><SVG version="1.1">"#,
    ])
    func recognisesSVGAfterItsProlog(text: String) {
        #expect(ImageFormat.sniff(Array(text.utf8)) == .svg)
    }

    @Test(arguments: [
        "<!DOCTYPE html><html><body><svg width=\"10\"></svg></body></html>",
        "<svgfoo>", "<?xml version=\"1.0\"?><rss><svg/></rss>", "BMW 320i for sale", "BM", "<!-- never closed <svg>",
        "{\"images\": []}",
    ])
    func textThatIsNotAnImageIsNotRecognised(text: String) {
        #expect(ImageFormat.sniff(Array(text.utf8)) == nil)
    }

    @Test func anSVGRootPastTheSniffedPrefixIsNotSeen() {
        let text = "<!--" + String(repeating: " ", count: ImageFormat.sniffLength) + "--><svg>"
        #expect(ImageFormat.sniff(Array(text.utf8)) == nil)
    }

    @Test func iconsNeedAPlausibleDirectory() throws {
        var icon = try Self.fixture("q.ico")
        #expect(ImageFormat.sniff(icon) == .ico)
        var misplaced = icon
        misplaced[18] = 4  // the picture would start inside the directory
        #expect(ImageFormat.sniff(misplaced) == nil)
        icon[4] = 0  // no images
        icon[5] = 0
        #expect(ImageFormat.sniff(icon) == nil)
    }

    @Test func cursorsAreIcons() throws {
        // Type 2, and the planes field holds the hotspot's column (5), which an icon's may not.
        let cursor = try Self.fixture("q.cur")
        #expect(cursor[2] == 2 && cursor[10] == 5)
        #expect(ImageFormat.sniff(cursor) == .ico)
    }

    @Test func anUnsupportedFormatIsNotTheBytesFault() {
        // Only decoders that decode less than imgview's (tests', previews of bytes arriving) say so.
        #expect(ImageDecodingError.unsupportedFormat(.svg).message == "unsupported format: SVG images cannot be previewed here")
        #expect(!ImageDecodingError.unsupportedFormat(.tiff).condemnsTheBytes)
        #expect(ImageDecodingError.truncated(.gif).condemnsTheBytes)
    }

    @Test func everyFormatHasAMimeTypeAndAnExtension() {
        for format in ImageFormat.allCases {
            #expect(format.mimeType.hasPrefix("image/"))
            #expect(!format.fileExtension.isEmpty && !format.fileExtension.contains("."))
        }
        #expect(ImageFormat.tiff.fileExtension == "tif" && ImageFormat.svg.mimeType == "image/svg+xml")
    }
}
