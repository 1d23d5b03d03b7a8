import Foundation
import ImgviewTestSupport
import Testing

/// Issue 26's small files that once took hundreds of megabytes (an animated WebP on a 10000²
/// canvas 0.8 GB, an RLE8 BMP declaring 10000² 421 MB, …), through the built binary at the
/// default limits: `show` into a pipe and `info` each stay under 100 MB at the peak, and end in
/// a preview or one line of error.
@Suite("Decoders' memory follows the output")
struct DecoderMemoryCommandTests {
    /// What `show` ends with for each: a preview, or refused in one line (exit 7) for a file
    /// whose library must hold more than the default 72 MB at full size.
    static let expectations: [String: (status: Int32, stderr: String?)] = [
        "webp-animation-10000-square-5000-frames.webp": (0, nil),
        "bmp-rle8-10000-square.bmp": (0, nil),
        "avif-8000-square.avif": (7, "image too large to decode: an AVIF of 8000×8000 needs 144 MB at full size, the limit is 72 MB"),
        "gif-10000-square.gif": (0, nil),
        "webp-lossless-16383x6000.webp": (7, "image too large to decode: a lossless WebP of 16383×6000 needs 393 MB at full size"),
        "gif-10000-frames.gif": (0, nil),
        // A 12 MP photo as phones store it: 91 MB at the peak in the release binary while libheif
        // made an RGB copy of it (the debug binary the tests run holds some 14 MB more); 91 in debug now.
        "heic-12mp-photo.heic": (0, nil),
        // libjxl decodes only whole: 93 MB in release while the RGBA canvas was copied to be reduced.
        "jxl-12mp-photo.jxl": (0, nil),
        // Full screen once past 100 MB (see `fullScreenNames`).
        "avif-4600-square.avif": (0, nil),
        "webp-lossless-3460-square.webp": (0, nil),
        "gif-3000-square.gif": (0, nil),
    ]

    /// Full screen: the HEIC and the JPEG XL that libheif and libjxl decode only at full size; an
    /// AVIF of 4600² and a lossless WebP of 3460², whose output at twice the box beside the
    /// library's full-size buffers passed 100 MB (161 and 110 MB in release before; the AVIF's
    /// rows summed into 16 bytes for every output pixel); the screens of 10000² whose rows did so
    /// too (138 MB); a GIF whose screen fits, composed then copied (87 in release, 101 debug).
    static let fullScreenNames = [
        "heic-12mp-photo.heic", "jxl-12mp-photo.jxl", "avif-4600-square.avif", "webp-lossless-3460-square.webp",
        "gif-10000-square.gif", "bmp-rle8-10000-square.bmp", "gif-3000-square.gif",
    ]

    /// Runs the binary under /usr/bin/time; its exit status, stderr lines and peak resident size in KB.
    static func measured(_ arguments: [String]) async throws -> (status: Int32, stdout: String, lines: [String], peakKB: Int) {
        let result = try await ImgviewProcess.run(
            ["-f", "peak %M", ImgviewProcess.binary.path] + arguments, executable: URL(fileURLWithPath: "/usr/bin/time"),
            environment: peakMeasurementEnvironment, timeout: .seconds(120))
        var lines = result.stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("Command exited with non-zero status") }
        let peak = lines.popLast().flatMap { Int($0.dropFirst("peak ".count)) } ?? .max
        return (result.status, result.stdout, lines, peak)
    }

    @Test(arguments: HostileImages.memoryImageNames)
    func showIntoAPipeStaysUnderAHundredMegabytes(name: String) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try HostileImages.memoryImage(name, in: folder)
        let expected = try #require(Self.expectations[name])
        let result = try await Self.measured(["show", file.path])
        #expect(result.status == expected.status, "\(name): exit \(result.status), \(result.lines)")
        if let message = expected.stderr {
            #expect(result.lines.count == 1 && result.lines[0].contains(message), "\(name): \(result.lines)")
        } else {
            #expect(result.lines.isEmpty, "into a pipe, the first frame is all there is to show: \(result.lines)")
            #expect(!result.stdout.isEmpty)
        }
        #expect(result.peakKB < memoryBound(kilobytes: 100 * 1024), "\(name): \(result.peakKB) KB at the peak")
    }

    /// Full screen (240×67 cells asks for about 1920×1072 samples of a 4:3 image, twice that
    /// kept), blocks in truecolour: a 12 MP HEIC or JPEG XL is kept at full size, 48 MB of RGBA,
    /// beside what libheif or libjxl still held (121 and 134 MB at the peak in release before:
    /// glibc kept the freed planes, the JPEG XL canvas was copied); see `fullScreenNames` for the rest.
    @Test(arguments: fullScreenNames)
    func showFullScreenStaysUnderAHundredMegabytes(name: String) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try HostileImages.memoryImage(name, in: folder)
        let result = try await Self.measured(["show", "--size", "240x67", "--mode", "blocks", "--colors", "full", file.path])
        #expect(result.status == 0 && result.lines.isEmpty, "\(name): exit \(result.status), \(result.lines)")
        #expect(result.stdout.split(separator: "\n").count > 30, "a full-screen preview")
        #expect(result.peakKB < memoryBound(kilobytes: 100 * 1024), "\(name): \(result.peakKB) KB at the peak")
    }

    /// Local files larger than the cache keeps in memory (32 MB): a 24 MP photo as an uncompressed
    /// BMP (72 MB) and a PNG whose deflate stores its rows (120 MB) were read whole beside their
    /// decode (111 and 158 MB at the peak in the debug binary at 80×24, 95 and 142 in release); now
    /// mapped, their pages let go as the decoder's rows move on. `info` of them too (157 MB once),
    /// and `get`, which copies them.
    @Test(arguments: ["bmp-photo-6000x4000.bmp", "png-photo-8000x5000-stored.png"])
    func aLargeLocalFileIsNotHeldWhole(name: String) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try HostileImages.memoryImage(name, in: folder)
        for arguments in [["show", file.path], ["show", "--size", "240x67", "--mode", "blocks", "--colors", "full", file.path]] {
            let result = try await Self.measured(arguments)
            #expect(result.status == 0 && result.lines.isEmpty, "\(name) \(arguments): exit \(result.status), \(result.lines)")
            #expect(result.stdout.split(separator: "\n").count >= 10, "\(name): a preview")
            #expect(result.peakKB < memoryBound(kilobytes: 100 * 1024), "\(name) \(arguments): \(result.peakKB) KB at the peak")
        }
        let info = try await Self.measured(["info", file.path])
        #expect(info.status == 0, "\(name): exit \(info.status), \(info.lines)")
        #expect(info.peakKB < memoryBound(kilobytes: 100 * 1024), "info \(name): \(info.peakKB) KB at the peak")
        // `get` copies it from where it is (it read the 120 MB PNG whole before: 139 MB at the peak).
        let copy = folder.appendingPathComponent("copy-\(name)")
        let get = try await Self.measured(["get", file.path, "-o", copy.path])
        #expect(get.status == 0, "\(name): exit \(get.status), \(get.lines)")
        #expect(FileManager.default.contentsEqual(atPath: copy.path, andPath: file.path))
        #expect(get.peakKB < memoryBound(kilobytes: 100 * 1024), "get \(name): \(get.peakKB) KB at the peak")
    }

    /// Pixel previews full screen (kitty into a pipe at 240×67, 10×20-pixel cells): a lossless
    /// WebP of 3460² kept 1.5 times its box beside libwebp's pixels, and the kitty encoder made
    /// three whole copies of the payload (128 MB at the peak in the debug binary before).
    @Test func aKittyPreviewFullScreenStaysUnderAHundredMegabytes() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try HostileImages.memoryImage("webp-lossless-3460-square.webp", in: folder)
        let result = try await Self.measured(["show", "--mode", "kitty", "--size", "240x67", file.path])
        #expect(result.status == 0 && result.lines.isEmpty, "exit \(result.status), \(result.lines)")
        #expect(result.stdout.hasPrefix("\u{1B}_G"), "a kitty preview")
        #expect(result.peakKB < memoryBound(kilobytes: 100 * 1024), "\(result.peakKB) KB at the peak")
    }

    /// A HEIC and a JPEG XL declaring 9000×9000 (within the pixel limit; the HEIC's stream is
    /// small) are refused in one line before libheif or libjxl allocate for them.
    @Test(arguments: ["heic", "jxl"])
    func aHugeDeclaredCanvasIsRefusedInOneLine(format: String) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("huge.\(format)")
        let bytes =
            format == "heic"
            ? try HostileImages.heicDeclaring(width: 9_000, height: 9_000, in: "q.heic")
            : HostileImages.jxlDeclaring(width: 9_000, height: 9_000)
        try bytes.write(to: file)
        let result = try await Self.measured(["show", file.path])
        let what = format == "heic" ? "a HEIC" : "a JPEG XL"
        #expect(result.status == 7, "exit \(result.status), \(result.lines)")
        #expect(
            result.lines.count == 1 && result.lines[0].hasPrefix("imgview: image too large to decode: \(what) of 9000×9000 needs"),
            "\(result.lines)")
        #expect(result.lines.first?.contains("the limit is 72 MB") == true, "\(result.lines)")
        #expect(result.peakKB < memoryBound(kilobytes: 100 * 1024), "\(result.peakKB) KB at the peak")
    }

    @Test(arguments: HostileImages.memoryImageNames)
    func infoStaysUnderAHundredMegabytes(name: String) async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try HostileImages.memoryImage(name, in: folder)
        let result = try await Self.measured(["info", file.path])
        #expect(result.status == 0, "\(name): exit \(result.status), \(result.lines)")
        #expect(result.peakKB < memoryBound(kilobytes: 100 * 1024), "\(name): \(result.peakKB) KB at the peak")
    }
}
