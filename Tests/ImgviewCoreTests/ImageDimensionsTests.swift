import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCore

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
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x40, 0x01, 0xC8, 0x00, 0, 0, 0]
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

    @Test func everyTruncationIsUnknownOrRightNeverACrash() throws {
        for path in [Fixtures.path("orient6.jpg"), Fixtures.path("rgb.png")] {
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
