import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewImaging

/// What tells a whole body from a cut one when the server did not say how long it is.
@Suite("Image completeness")
struct ImageCompletenessTests {
    static func asset(_ name: String) -> [UInt8] {
        [UInt8](try! Data(contentsOf: repositoryRoot.appendingPathComponent("Assets/images/\(name)")))
    }

    /// Two frames with a graphic control extension each, a global colour table, and a comment.
    static let gif: [UInt8] = {
        var bytes = Array("GIF89a".utf8) + [2, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        bytes += [0x21, 0xFE, 3] + Array("hi!".utf8) + [0]
        for _ in 0..<2 {
            bytes += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
            bytes += [0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
        }
        return bytes + [0x3B]
    }()

    static let webp: [UInt8] = {
        let payload = [UInt8](repeating: 7, count: 21)
        let chunk = Array("VP8L".utf8) + le32(payload.count) + payload + [0]
        let body = Array("WEBP".utf8) + chunk
        return Array("RIFF".utf8) + le32(body.count) + body
    }()

    /// 3×2 pixels, 24 bits: rows of 9 bytes padded to 12; `declaringSize` false writes 0 in the file header.
    static func bmp(declaringSize: Bool) -> [UInt8] {
        let pixels = [UInt8](repeating: 0x80, count: 24)
        let size = 54 + pixels.count
        var header = Array("BM".utf8) + le32(declaringSize ? size : 0) + le32(0) + le32(54)
        header += le32(40) + le32(3) + le32(2) + [1, 0, 24, 0] + le32(0) + le32(pixels.count) + le32(0) + le32(0) + le32(0) + le32(0)
        return header + pixels
    }

    /// 2×1 pixels: one RGB chunk, a run of one, the end marker.
    static let qoi: [UInt8] = Array("qoif".utf8) + [0, 0, 0, 2, 0, 0, 0, 1, 3, 0] + [0xFE, 10, 20, 30, 0xC0] + [0, 0, 0, 0, 0, 0, 0, 1]

    /// The container form: the signature box, `ftyp`, and the codestream in two parts (the last flagged).
    static let jpegXLContainer: [UInt8] = {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }
        return box("JXL ", [0x0D, 0x0A, 0x87, 0x0A]) + box("ftyp", Array("jxl \0\0\0\0jxl ".utf8))
            + box("jxlp", be32(0) + [0xFF, 0x0A, 0xFA, 0x00]) + box("jxlp", be32(0x8000_0001) + [0x11, 0x22, 0x33])
    }()

    static func fixture(_ name: String) -> [UInt8] {
        [UInt8](try! Fixtures.data(name))
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func le32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }

    static let samples: [(String, ImageFormat, [UInt8])] = [
        ("baseline JPEG", .jpeg, asset("01_grace_hopper.jpg")),
        ("progressive JPEG", .jpeg, asset("09_cups_progressive.jpg")),
        ("JPEG with EXIF", .jpeg, asset("12_exif_orient6.jpg")),
        ("PNG", .png, asset("04_coffee.png")),
        ("grey PNG", .png, asset("05_camera_gray.png")),
        ("animated GIF", .gif, gif),
        ("WebP", .webp, webp),
        ("BMP", .bmp, bmp(declaringSize: true)),
        ("BMP without a file size", .bmp, bmp(declaringSize: false)),
        ("GIF photograph", .gif, fixture("hopper.gif")),
        ("animated WebP", .webp, fixture("anim.webp")),
        ("AVIF", .avif, fixture("hopper.avif")),
        ("AVIF with alpha", .avif, fixture("q-alpha.avif")),
        ("animated AVIF", .avif, fixture("anim.avif")),
        ("ICO", .ico, fixture("q.ico")),
        ("QOI", .qoi, qoi),
        ("JPEG XL container", .jxl, jpegXLContainer),
    ]

    @Test(arguments: samples.map(\.0))
    func wholeIsCompleteAndEveryCutIsTruncated(label: String) throws {
        let (_, format, bytes) = try #require(Self.samples.first { $0.0 == label })
        #expect(ImageCompleteness.verdict(bytes, format: format) == .complete)
        // Every cut in the last and first 300 bytes, and 300 spread over the rest.
        let cuts = Set(Array(max(0, bytes.count - 300)..<bytes.count) + Array(0..<min(300, bytes.count)))
            .union(stride(from: 0, to: bytes.count, by: max(1, bytes.count / 300)))
        for cut in cuts.sorted() {
            #expect(
                ImageCompleteness.verdict(Array(bytes.prefix(cut)), format: format) == .truncated,
                "\(label) cut at \(cut) of \(bytes.count)")
        }
    }

    /// An EXIF thumbnail is a JPEG inside the JPEG, EOI included: the walk skips it whole.
    @Test func aThumbnailsEndIsNotTheImagesEnd() {
        let photo = Self.asset("01_grace_hopper.jpg")
        let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0, 4, 1, 2, 0xFF, 0xD9]
        let app1 = [0xFF, 0xE1] + [UInt8(0), UInt8(2 + 6 + thumbnail.count)] + Array("Exif\0\0".utf8) + thumbnail
        let withThumbnail = Array(photo.prefix(2)) + app1 + Array(photo.dropFirst(2))
        #expect(ImageCompleteness.verdict(withThumbnail, format: .jpeg) == .complete)
        #expect(ImageCompleteness.verdict(Array(withThumbnail.prefix(withThumbnail.count / 2)), format: .jpeg) == .truncated)
    }

    /// Bytes after the end (a JPEG's trailing data, a PNG's garbage) do not make it incomplete.
    @Test func trailingBytesAreNotMissingBytes() {
        #expect(ImageCompleteness.verdict(Self.asset("01_grace_hopper.jpg") + [1, 2, 3], format: .jpeg) == .complete)
        #expect(ImageCompleteness.verdict(Self.asset("04_coffee.png") + [0, 0], format: .png) == .complete)
    }

    /// Formats whose end no one place says are left to what reads them.
    @Test func formatsWithoutAKnownEndAreUnknown() {
        #expect(ImageCompleteness.verdict(Self.fixture("q.tif"), format: .tiff) == .unknown)
        #expect(ImageCompleteness.verdict(Array("<svg xmlns='http://www.w3.org/2000/svg'>".utf8), format: .svg) == .unknown)
        #expect(ImageCompleteness.verdict([0xFF, 0x0A, 0xFA, 0x00, 0x11], format: .jxl) == .unknown)
    }

    /// An AVIF whose items' data `iloc` places past the end is cut, even when the cut falls between two boxes.
    @Test func anAVIFCutBetweenItsBoxesIsTruncated() throws {
        let avif = Self.fixture("hopper.avif")
        let boxes = ISOMediaHeader.boxes(in: avif, 0..<avif.count)
        let mdat = try #require(boxes.first { $0.type == "mdat" })
        #expect(ImageCompleteness.verdict(Array(avif.prefix(mdat.start)), format: .avif) == .truncated)
        #expect(ImageCompleteness.verdict(avif + [0xFF, 0xD9, 0x00, 0x3B], format: .avif) == .complete)
    }

    @Test func aFileIsReadThroughAWindow() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("a.jpg")
        // A window much smaller than the file, so the walk and the scans for markers cross windows.
        let progressive = Self.asset("09_cups_progressive.jpg")
        try Data(progressive).write(to: url)
        #expect(ImageCompleteness.verdict(fileAt: url, format: .jpeg, windowSize: 4096) == .complete)
        try Data(progressive.prefix(progressive.count - 1)).write(to: url)
        #expect(ImageCompleteness.verdict(fileAt: url, format: .jpeg, windowSize: 4096) == .truncated)
        try Data(Self.asset("04_coffee.png")).write(to: url)
        #expect(ImageCompleteness.verdict(fileAt: url, format: .png, windowSize: 4096) == .complete)
        let avif = Self.fixture("hopper.avif")
        try Data(avif).write(to: url)
        #expect(ImageCompleteness.verdict(fileAt: url, format: .avif, windowSize: 512) == .complete)
        try Data(avif.prefix(avif.count - 1)).write(to: url)
        #expect(ImageCompleteness.verdict(fileAt: url, format: .avif, windowSize: 512) == .truncated)
    }
}
