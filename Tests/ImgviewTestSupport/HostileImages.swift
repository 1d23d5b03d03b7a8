import Foundation

/// Files made to hurt a decoder — a size that would need gigabytes, a box that lies, a directory
/// that loops — built from the fixtures or byte by byte, for the decoders' tests and for `show`
/// under a memory measure alike.
public enum HostileImages {
    /// Every one, by a name that says what it does.
    public static func all() throws -> [(name: String, bytes: Data)] {
        [
            ("tiff-100000-square.tif", tiff(width: 100_000, height: 100_000, rowsPerStrip: 100_000)),
            ("tiff-strip-bomb.tif", tiff(width: 10_000, height: 10_000, rowsPerStrip: 10_000)),
            ("tiff-directory-loop.tif", tiff(width: 16, height: 12, rowsPerStrip: 12, loops: true)),
            ("heic-60000-square.heic", try heicDeclaring(width: 60_000, height: 60_000, in: "q.heic")),
            ("heic-lying-ispe.heic", try heicDeclaring(width: 100, height: 100, in: "cat.heic")),
            ("jxl-60000-square.jxl", jxlDeclaring(width: 60_000, height: 60_000)),
            ("qoi-10000-square.qoi", qoi(width: 10_000, height: 10_000, runs: 100)),
            ("ico-65535-entries.ico", try iconWithEntries(65_535)),
            ("ico-png-4294967295-square.ico", iconWithPNGsDeclaring(side: 0xFFFF_FFFF)),
            ("bmp-rows-past-int-max.bmp", bitmapDeclaring(width: 2_147_483_646, height: 1_073_741_825, pixelOffset: 0xFFFF_FFFF)),
            ("bigtiff-4398046511105-square.tif", bigTIFF(width: (1 << 42) + 1, height: (1 << 42) + 1)),
            ("jxl-frames-of-4294967295-ticks.jxl", jxlAnimationOfLongestFrames),
            ("apng-off-canvas.png", try apngWithFrameOffCanvas()),
            ("webp-130-frames-of-16777215-ms.webp", try webpAnimationOfLongestFrames(count: 130)),
            ("heic-derived-from-itself.heic", heicDerivedFromItself),
            (
                "svg-40001-elements.svg",
                Data(("<svg xmlns=\"http://www.w3.org/2000/svg\">" + String(repeating: "<g/>", count: 40_001) + "</svg>").utf8)
            ),
            ("svg-embedded-bomb.svg", try svgEmbedding("bomb.png")),
            ("svg-embedded-qoi-4294967295-square.svg", svgEmbedding(qoi(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF, runs: 0), type: "qoi")),
            (
                "svg-1e30-wide.svg",
                Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="1e30" height="1"><rect width="1" height="1"/></svg>"#.utf8)
            ),
        ]
    }

    /// Issue 26's small files that once took hundreds of megabytes to decode, by name: what
    /// `Generators/memory_images.py` makes (bench/bench_hardening.py measures the same files).
    public static let memoryImageNames = [
        "webp-animation-10000-square-5000-frames.webp", "bmp-rle8-10000-square.bmp", "avif-8000-square.avif", "gif-10000-square.gif",
        "webp-lossless-16383x6000.webp", "gif-10000-frames.gif", "heic-12mp-photo.heic", "jxl-12mp-photo.jxl",
        "avif-4600-square.avif", "webp-lossless-3460-square.webp", "gif-3000-square.gif",
    ]

    /// The generator of the memory files.
    public static let memoryImageGenerator = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Generators/memory_images.py")

    /// Writes the memory file `name` into `folder` and returns where (python3; the AVIF needs
    /// avifenc, the HEIC heif-enc, the JPEG XL cjxl).
    public static func memoryImage(_ name: String, in folder: URL) throws -> URL {
        try SystemCommands.run("/usr/bin/python3", [memoryImageGenerator.path, folder.path, name])
        return folder.appendingPathComponent(name)
    }

    /// The bytes of the memory file `name`.
    public static func memoryImageBytes(_ name: String) throws -> Data {
        let folder = try temporaryFolder(prefix: "imgview-memory-images")
        defer { try? FileManager.default.removeItem(at: folder) }
        return try Data(contentsOf: try memoryImage(name, in: folder))
    }

    /// A little-endian grey TIFF of one deflate strip holding a few bytes: `loops` points its only
    /// directory back at itself.
    public static func tiff(width: Int, height: Int, rowsPerStrip: Int, loops: Bool = false) -> Data {
        func little(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let strip: [UInt8] = [0x78, 0x9C, 0x63, 0x60, 0x18, 0x05, 0x00, 0x00, 0x00, 0x00]
        let entries: [(tag: Int, type: Int, value: Int)] = [
            (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 8), (262, 3, 1), (273, 4, 8), (277, 3, 1), (278, 4, rowsPerStrip),
            (279, 4, strip.count),
        ]
        let directory = 8 + strip.count
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + little(directory, 4) + strip + little(entries.count, 2)
        for entry in entries {
            bytes +=
                little(entry.tag, 2) + little(entry.type, 2) + little(1, 4)
                + (entry.type == 3 ? little(entry.value, 2) + [0, 0] : little(entry.value, 4))
        }
        return Data(bytes + little(loops ? directory : 0, 4))
    }

    /// `fixture` (a HEIC) with its `ispe` properties saying `width × height`.
    public static func heicDeclaring(width: Int, height: Int, in fixture: String) throws -> Data {
        var bytes = [UInt8](try Fixtures.data(fixture))
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        for start in bytes.indices.dropLast(16) where bytes[start..<start + 4].elementsEqual("ispe".utf8) {
            // The type, then version and flags, then the width and height.
            bytes.replaceSubrange((start + 8)..<(start + 16), with: bigEndian(width) + bigEndian(height))
        }
        return Data(bytes)
    }

    /// q-alpha.heic with its alpha image (item 4) made from the primary image (`dimg` 4 → 2
    /// instead of 4 → 3): the primary decodes its alpha, which decodes the primary, and so on.
    /// libheif 1.15 checks only an image that names itself, and recursed until it ran out of threads.
    public static func heicWhoseAlphaIsMadeFromItsImage() throws -> Data {
        var bytes = [UInt8](try Fixtures.data("q-alpha.heic"))
        // The `dimg` reference from item 4: its size, type, from-ID, count, then the ID it names.
        let reference: [UInt8] = [0, 0, 0, 14] + Array("dimg".utf8) + [0, 4, 0, 1, 0, 3]
        guard
            let start = bytes.indices.dropLast(reference.count).first(where: { bytes[$0..<$0 + reference.count].elementsEqual(reference) })
        else { throw CocoaError(.fileReadCorruptFile) }
        bytes[start + reference.count - 1] = 2
        return Data(bytes)
    }

    /// q-alpha.heic with its primary image, a 1×1 grid, declaring a canvas of `width × height`
    /// in its descriptor (in `idat`) while its `ispe` still says 16×12: libFuzzer's find, on which
    /// libheif 1.15 allocated and filled the descriptor's canvas.
    public static func heicWithGridCanvas(width: Int, height: Int) throws -> Data {
        var bytes = [UInt8](try Fixtures.data("q-alpha.heic"))
        // idat: two 8-byte descriptors (version, flags, rows − 1, columns − 1, 16-bit width and height).
        let descriptors: [UInt8] = [0, 0, 0, 0, 0, 16, 0, 12, 0, 0, 0, 0, 0, 16, 0, 12]
        guard
            let start = bytes.indices.dropLast(descriptors.count).first(where: {
                bytes[$0..<$0 + descriptors.count].elementsEqual(descriptors)
            })
        else { throw CocoaError(.fileReadCorruptFile) }
        bytes.replaceSubrange(
            (start + 4)..<(start + 8), with: [UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF)])
        return Data(bytes)
    }

    /// A bare JPEG XL codestream whose SizeHeader says `width × height`, with default metadata and no more.
    public static func jxlDeclaring(width: Int, height: Int) -> Data {
        var bits: [Int] = []
        func put(_ value: Int, _ count: Int) { for bit in 0..<count { bits.append(value >> bit & 1) } }
        put(0, 1)  // not small
        put(3, 2)  // a 30-bit height
        put(height - 1, 30)
        put(0, 3)  // no fixed ratio: a width follows
        put(3, 2)
        put(width - 1, 30)
        put(1, 1)  // ImageMetadata all_default
        while bits.count % 8 != 0 { bits.append(0) }
        let packed = stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { $0 | UInt8(bits[start + $1]) << UInt8($1) }
        }
        return Data([0xFF, 0x0A] + packed + [UInt8](repeating: 0, count: 16))
    }

    /// A QOI header saying `width × height`, then `runs` runs of 62 pixels and the end marker.
    public static func qoi(width: Int, height: Int, runs: Int) -> Data {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let header = Array("qoif".utf8) + bigEndian(width) + bigEndian(height) + [4, 0]
        return Data(header + [0xFE, 200, 30, 30] + [UInt8](repeating: 0xFD, count: runs) + [0, 0, 0, 0, 0, 0, 0, 1])
    }

    /// An icon directory listing `count` pictures, every one the 16×12 PNG.
    public static func iconWithEntries(_ count: Int) throws -> Data {
        let png = [UInt8](try Fixtures.data("rgb.png"))
        func little(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let offset = 6 + 16 * count
        var bytes: [UInt8] = [0, 0, 1, 0] + little(count, 2)
        for _ in 0..<count { bytes += [16, 12, 0, 0] + little(1, 2) + little(32, 2) + little(png.count, 4) + little(offset, 4) }
        return Data(bytes + png)
    }

    /// An icon directory listing two PNG pictures, each a signature and an IHDR declaring `side`
    /// square and nothing after it.
    public static func iconWithPNGsDeclaring(side: Int) -> Data {
        func little(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let png: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13) + Array("IHDR".utf8)
            + bigEndian(side) + bigEndian(side) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
        let entry: [UInt8] = [0, 0, 0, 0] + little(1, 2) + little(32, 2) + little(png.count, 4) + little(6 + 2 * 16, 4)
        return Data([0, 0, 1, 0] + little(2, 2) + entry + entry + png)
    }

    /// A 32-bit bitmap's headers declaring `width × height` with rows from `pixelOffset`, no file
    /// size (so the rows say where the file ends) and no pixel.
    public static func bitmapDeclaring(width: Int, height: Int, pixelOffset: Int) -> Data {
        func little(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let fileHeader = Array("BM".utf8) + little(0, 4) + little(0, 4) + little(pixelOffset, 4)
        let info = little(40, 4) + little(width, 4) + little(height, 4) + little(1, 2) + little(32, 2) + little(0, 6 * 4)
        return Data(fileHeader + info)
    }

    /// A little-endian BigTIFF whose one directory says `width × height` in 64-bit values (LONG8), and nothing else.
    public static func bigTIFF(width: Int, height: Int) -> Data {
        func little(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes: [UInt8] = [0x49, 0x49] + little(43, 2) + little(8, 2) + little(0, 2) + little(16, 8) + little(2, 8)
        for (tag, value) in [(256, width), (257, height)] { bytes += little(tag, 2) + little(16, 2) + little(1, 8) + little(value, 8) }
        return Data(bytes + little(0, 8))
    }

    /// A JPEG XL animation of two 2×2 frames, each lasting 4294967295 ticks (the most a frame
    /// header says) of 1000 seconds (tps_numerator 1, tps_denominator 1000): written by libjxl
    /// 0.7's encoder API (`JxlEncoderSetFrameHeader`), which no command-line tool reaches.
    public static let jxlAnimationOfLongestFrames = Data(
        base64Encoded:
            "/woIEEEB+HwgJwAS+P///x8oALABRbMYAAAVKqOMG7yc6/nyQ4fFtI3rDG21bWFJosg4NkkncEgSy8DGjWwGwADAzPX1aIVUSIEk"
            + "13XZyFhFRipSsWZPeArkP70aaMOnTSw2zIup+RwBymEQHMzToCRN6ZzLEZWB1QOt0Tr2gaECABL4////PwoAsAFFsxgAABUqo4wb"
            + "vJzr+fJDh8W0jesMbbVtYUmiyDg2SSdwSBLLwMaNbAbAAMDM9fVohVRIgSTXddnIWEVGKlKxZk94CuQ/vRpow6dNLDbMi6n5HAHK"
            + "YRAczNOgJE3pnMsRlYHVA63ROvaBoQI=")!

    /// anim.webp's first frame `count` times over, each shown 16777215 ms, the most an ANMF chunk
    /// says: past 128 of them, libwebp's timestamps (an int of milliseconds) wrap.
    public static func webpAnimationOfLongestFrames(count: Int) throws -> Data {
        let bytes = [UInt8](try Fixtures.data("anim.webp"))
        func little(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            Array(type.utf8) + little(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        var chunks: [String: [UInt8]] = [:]
        var position = 12
        while position + 8 <= bytes.count {
            let length = bytes[(position + 4)..<(position + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
            if chunks[type] == nil { chunks[type] = Array(bytes[(position + 8)..<(position + 8 + length)]) }
            position += 8 + length + (length & 1)
        }
        guard let extended = chunks["VP8X"], var frame = chunks["ANMF"] else { throw CocoaError(.fileReadCorruptFile) }
        frame.replaceSubrange(12..<15, with: little(0xFF_FFFF, 3))
        let body = chunk("VP8X", extended) + chunk("ANIM", [0, 0, 0, 0] + little(1, 2)) + (0..<count).flatMap { _ in chunk("ANMF", frame) }
        return Data(Array("RIFF".utf8) + little(4 + body.count, 4) + Array("WEBP".utf8) + body)
    }

    /// A HEIC whose primary item (2) is derived from itself (`iref` `dimg` 2 → 2): libFuzzer's
    /// mutation of q.heic, on which libheif 1.15 recursed until the stack overflowed.
    public static let heicDerivedFromItself = Data(
        base64Encoded:
            "AAAAHGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZgAAAa1tZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAA"
            + "AA5waXRtAAAAAAACAAAAEGlkYXQAAAAAABAADAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHRAAEAAAAAAAAAdwACAAEAAAAAAAAA"
            + "AQAAAAAAAAAIAAAAOGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAAaHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAAAADYaXBycAAA"
            + "ALZpcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAeugJAIQABACpCAQED"
            + "cAAAAwCQAAADAAADAB6gIIEFluqumubgQE1lbVRvdGFsAAADAIQiAAEABkQBwXPBiQAAABRpc3BlAAAAAAAAAEAAAABAAAAAFGlz"
            + "cGUAAAAAAAAAEAAAAAwAAAAQcGl4aQAAAAADCAgIAAAAGmlwbWEAAAAAAAAAAgABAoECAAICA4QAAAAaaXJlZgAAAAAAAAAOZGlt"
            + "ZwACAAEAAgAAAH9tZGF0AAAAcygBrwYyHqBw0F1Bbw1fZhFseL3HcTDyMRVd4tJdCdd3rX6Im+NEk8m5fs58U+/qh6B/7a/ipLti"
            + "/2SPbH3U+ZfsNdQSM/UY2uCYbx+nt6F3sLO8mXh8Le/Dx8JJQ9Bq/lp7zlsAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
            + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABGgYm4fMa6AsFx8"
            + "4vBHIw==")!

    /// anim.png with its second frame placed at x = 100, off its 16×12 canvas.
    public static func apngWithFrameOffCanvas() throws -> Data {
        var bytes = [UInt8](try Fixtures.data("anim.png"))
        let controls = bytes.indices.dropLast(4).filter { bytes[$0..<$0 + 4].elementsEqual("fcTL".utf8) }
        // The type, then the sequence number, width and height, then x.
        bytes.replaceSubrange((controls[1] + 16)..<(controls[1] + 20), with: [0, 0, 0, 100])
        return Data(bytes)
    }

    /// An SVG drawing `fixture` as an embedded (base64 data URI) image.
    public static func svgEmbedding(_ fixture: String) throws -> Data {
        svgEmbedding(try Fixtures.data(fixture), type: "png")
    }

    /// An SVG drawing `image` (of MIME subtype `type`) as an embedded (base64 data URI) image.
    public static func svgEmbedding(_ image: Data, type: String) -> Data {
        let encoded = image.base64EncodedString()
        return Data(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="data:image/\#(type);base64,\#(encoded)" width="10" height="10"/></svg>"#
                .utf8)
    }
}
