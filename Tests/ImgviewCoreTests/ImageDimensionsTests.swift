import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging

/// Pixel sizes read from headers only, for the cache's metadata.
@Suite("Image dimensions from headers")
struct ImageDimensionsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func file(_ path: String) -> URL { path.hasPrefix("/") ? URL(fileURLWithPath: path) : repository.appendingPathComponent(path) }

    @Test(arguments: [
        ("Assets/images/01_grace_hopper.jpg", 512, 600),
        ("Assets/images/03_chelsea_cat.png", 451, 300),
        ("Assets/images/09_cups_progressive.jpg", 2560, 1600),
        // Stored 600×512 with EXIF orientation 6: upright it is 512×600, as `info` says.
        ("Assets/images/12_exif_orient6.jpg", 512, 600),
        (Fixtures.path("orient6.jpg"), 16, 12),
        (Fixtures.path("orient3.jpg"), 16, 12),
        (Fixtures.path("cmyk.jpg"), 16, 12),
        (Fixtures.path("interlaced.png"), 16, 12),
        (Fixtures.path("bomb.png"), 100_000, 100_000),
    ])
    func readsTheSizeOfRealFiles(path: String, width: Int, height: Int) throws {
        let expected = ImageDimensions(width: width, height: height)
        #expect(ImageDimensions.read(fileAt: Self.file(path)) == expected)
        #expect(ImageDimensions.read([UInt8](try Data(contentsOf: Self.file(path)))) == expected)
    }

    @Test func findsAFrameHeaderPastALargeMetadataBlock() throws {
        // SOI, then 200 KB of APP segments (more than the first read), then SOF0 for 320×200.
        var bytes: [UInt8] = [0xFF, 0xD8]
        for _ in 0..<4 { bytes += [0xFF, 0xE2, 0xC3, 0x52] + [UInt8](repeating: 0x41, count: 50_000) }
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0xC8, 0x01, 0x40, 0x03] + [UInt8](repeating: 0, count: 9)
        bytes += [0xFF, 0xD9]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imgview-dimensions-\(UUID().uuidString).jpg")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(ImageDimensions.read(fileAt: url) == ImageDimensions(width: 320, height: 200))
        #expect(ImageDimensions.read(bytes) == ImageDimensions(width: 320, height: 200))
    }

    @Test func readsGIFBMPAndWebPHeaders() {
        // The screen, then the first image's descriptor: a GIF without an image has no size to show.
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x40, 0x01, 0xC8, 0x00, 0, 0, 0] + [0x2C, 0, 0, 0, 0, 0x40, 0x01, 0xC8, 0x00, 0]
        #expect(ImageDimensions.read(gif) == ImageDimensions(width: 320, height: 200))

        var bmp: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0]
        bmp += [0x40, 0x01, 0, 0] + [0x38, 0xFF, 0xFF, 0xFF]  // width 320, height -200 (top-down)
        #expect(ImageDimensions.read(bmp) == ImageDimensions(width: 320, height: 200))

        func webp(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array(chunk.utf8) + [0, 0, 0, 0] + payload
                + [UInt8](repeating: 0, count: 16)
        }
        let lossy = webp("VP8 ", [0, 0, 0, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xC8, 0x00])
        #expect(ImageDimensions.read(lossy) == ImageDimensions(width: 320, height: 200))
        // 14 bits of width - 1 (319), then 14 of height - 1 (199).
        let bits = UInt32(319) | UInt32(199) << 14
        let lossless = webp("VP8L", [0x2F, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)])
        #expect(ImageDimensions.read(lossless) == ImageDimensions(width: 320, height: 200))
        let extended = webp("VP8X", [0, 0, 0, 0, 0x3F, 0x01, 0x00, 0xC7, 0x00, 0x00])
        #expect(ImageDimensions.read(extended) == ImageDimensions(width: 320, height: 200))
    }

    @Test(arguments: [
        ("q.tif", 16, 12), ("q.ico", 16, 12), ("q-8bit.avif", 16, 12), ("anim.avif", 16, 12),
        // Stored 16×12 with an `irot` of a quarter turn: 12×16 upright.
        ("q-irot.avif", 12, 16), ("anim.gif", 16, 12), ("q-32-alpha.bmp", 16, 12), ("anim.webp", 16, 12),
    ])
    func readsTheNewFormatsFromFilesRealToolsWrote(name: String, width: Int, height: Int) throws {
        let url = Self.file(Fixtures.path(name))
        #expect(ImageDimensions.read(fileAt: url) == ImageDimensions(width: width, height: height))
    }

    @Test func readsHEICFromItsPrimaryItem() {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            bigEndian(UInt32(8 + payload.count)) + Array(type.utf8) + payload
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        let fullBox: [UInt8] = [0, 0, 0, 0]
        // Item 2 is primary: a thumbnail (item 1, 320×240) comes first, the image has `irot` 3.
        let properties = box(
            "ipco",
            box("ispe", fullBox + bigEndian(320) + bigEndian(240)) + box("ispe", fullBox + bigEndian(4032) + bigEndian(3024))
                + box("irot", [3]))
        let associations = box("ipma", fullBox + bigEndian(2) + [0, 1, 1, 0x81] + [0, 2, 2, 0x82, 0x03])
        let meta = box(
            "meta",
            fullBox + box("hdlr", fullBox + [UInt8](repeating: 0, count: 20)) + box("pitm", fullBox + [0, 2])
                + box("iprp", properties + associations))
        let file = ImageFormatTests.ftyp(major: "heic", compatible: ["mif1"]).dropLast(16) + meta
        #expect(ImageFormat.sniff(Array(file)) == .heic)
        #expect(ImageDimensions.read(Array(file)) == ImageDimensions(width: 3024, height: 4032))
    }

    @Test func readsJPEGXLSizeHeaders() {
        /// Bits least significant first, as JPEG XL packs them.
        func codestream(_ fields: [(value: Int, bits: Int)]) -> [UInt8] {
            var bytes: [UInt8] = [0xFF, 0x0A]
            var bit = 0
            for (value, count) in fields {
                for index in 0..<count {
                    if bit % 8 == 0 { bytes.append(0) }
                    bytes[bytes.count - 1] |= UInt8((value >> index) & 1) << (bit % 8)
                    bit += 1
                }
            }
            return bytes + [0, 0, 0, 0]
        }
        // Small: height 64 (7 + 1 eighths), ratio 0, width 128 (15 + 1 eighths).
        #expect(ImageDimensions.read(codestream([(1, 1), (7, 5), (0, 3), (15, 5)])) == ImageDimensions(width: 128, height: 64))
        // Height 1080 as a 13-bit value (selector 1), ratio 5 (16:9).
        #expect(ImageDimensions.read(codestream([(0, 1), (1, 2), (1079, 13), (5, 3)])) == ImageDimensions(width: 1920, height: 1080))
        // Height 3000 (selector 1), ratio 0, width 70000 (selector 2, 18 bits).
        let explicit = codestream([(0, 1), (1, 2), (2999, 13), (0, 3), (2, 2), (69_999, 18)])
        #expect(ImageDimensions.read(explicit) == ImageDimensions(width: 70_000, height: 3000))
        // The same codestream inside the container's `jxlc` box.
        let signature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        let ftyp: [UInt8] = [0, 0, 0, 0x14] + Array("ftypjxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8)
        let contained = signature + ftyp + [0, 0, 0, UInt8(8 + explicit.count)] + Array("jxlc".utf8) + explicit
        #expect(ImageDimensions.read(contained) == ImageDimensions(width: 70_000, height: 3000))
    }

    @Test func readsQOIHeaders() {
        let qoi = Array("qoif".utf8) + [0, 0, 0x01, 0x40, 0, 0, 0, 0xC8, 4, 0] + [UInt8](repeating: 0, count: 8)
        #expect(ImageDimensions.read(qoi) == ImageDimensions(width: 320, height: 200))
    }

    @Test func svgHasNoPixelSize() {
        #expect(ImageDimensions.read(Array(#"<svg width="10" height="10"/>"#.utf8)) == nil)
    }

    @Test func everyTruncationIsUnknownOrRightNeverACrash() throws {
        let names = ["orient6.jpg", "rgb.png", "q.tif", "q.ico", "q-irot.avif", "anim.webp", "q-24.bmp", "anim.gif"]
        for path in names.map(Fixtures.path) {
            let bytes = [UInt8](try Data(contentsOf: Self.file(path)))
            let whole = ImageDimensions.read(bytes)
            for length in 0..<min(bytes.count, 700) {
                let size = ImageDimensions.read(Array(bytes.prefix(length)))
                #expect(size == nil || size == whole || size == whole.map { ImageDimensions(width: $0.height, height: $0.width) })
            }
        }
    }

    @Test func garbageIsUnknown() {
        #expect(ImageDimensions.read([]) == nil)
        #expect(ImageDimensions.read(Array("not an image at all".utf8)) == nil)
        // A JPEG whose segment lengths point nowhere, and one with a zero-sized frame.
        #expect(ImageDimensions.read([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF, 0x00]) == nil)
        #expect(ImageDimensions.read([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x00, 0x00, 0x00]) == nil)
        #expect(ImageDimensions.read([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]) == nil)
    }
}
