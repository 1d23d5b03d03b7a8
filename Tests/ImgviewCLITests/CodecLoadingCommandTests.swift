import Foundation
import ImgviewTestSupport
import Testing

/// The heavy codec libraries as a user meets them: absent from the binary's start, loaded by the
/// first image that needs one, and hostile files of every new format refused in one line within
/// 100 MB at the defaults.
@Suite("Codec libraries and hostile files on the command line")
struct CodecLoadingCommandTests {
    static let onDemand = ["libtiff.so.6", "libheif.so.1", "libjxl.so.0.7", "librsvg-2.so.2", "liblcms2.so.2"]

    @Test func theBinaryLinksNoLibraryOpenedOnDemand() async throws {
        let result = try await ImgviewProcess.run(["-d", ImgviewProcess.binary.path], executable: URL(fileURLWithPath: "/usr/bin/readelf"))
        let needed = result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty, "\(result.stderr)")
        for library in Self.onDemand { #expect(!needed.contains { $0.contains(library) }, "\(library) is linked") }
    }

    /// What the dynamic loader opened (LD_DEBUG=files) while `imgview show` drew `fixture`.
    static func librariesOpened(showing fixture: String) async throws -> Set<String> {
        let result = try await ImgviewProcess.run(
            ["show", Fixtures.path(fixture), "--size", "8x3", "--mode", "ascii"], environment: ["LD_DEBUG": "files"])
        #expect(result.status == 0)
        return Set(Self.onDemand.filter { result.stderr.contains("file=\($0)") })
    }

    @Test func aCommandOpensOnlyTheLibrariesOfTheFormatsItMeets() async throws {
        #expect(try await Self.librariesOpened(showing: "rgb.png").isEmpty)
        #expect(try await Self.librariesOpened(showing: "q.qoi").isEmpty)
        #expect(try await Self.librariesOpened(showing: "q-lzw.tif") == ["libtiff.so.6"])
        #expect(try await Self.librariesOpened(showing: "q.heic") == ["libheif.so.1"])
        // libjxl links Little CMS itself.
        #expect(try await Self.librariesOpened(showing: "q.jxl") == ["libjxl.so.0.7", "liblcms2.so.2"])
        #expect(try await Self.librariesOpened(showing: "q.svg") == ["librsvg-2.so.2"])
        // Little CMS only for a colour space that is not sRGB: not for an untagged photo.
        #expect(try await Self.librariesOpened(showing: "coffee-p3.jpg") == ["liblcms2.so.2"])
        #expect(try await Self.librariesOpened(showing: "photo.jpg").isEmpty)
    }

    /// Every hostile file, and every new fixture cut at 60 %, through `show` at the default limits:
    /// a preview with a warning or one line of error, and a peak resident size under 100 MB.
    @Test func badFilesEndInOneLineWithinAHundredMegabytes() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var files = try HostileImages.all()
        for name in [
            "hopper.tif", "pages.tif", "thumb.heic", "cat.heic", "cat.jxl", "anim.jxl", "text.svg", "hopper.qoi", "hopper.ico",
            "dispose.png",
        ] {
            let bytes = try Fixtures.data(name)
            files.append(("cut-" + name, bytes.prefix(bytes.count * 6 / 10)))
        }
        for (name, bytes) in files {
            let file = folder.appendingPathComponent(name)
            try bytes.write(to: file)
            let result = try await ImgviewProcess.run(
                ["-f", "peak %M", ImgviewProcess.binary.path, "show", file.path, "--size", "80x24", "--mode", "ascii"],
                executable: URL(fileURLWithPath: "/usr/bin/time"))
            var lines = result.stderr.split(separator: "\n").map(String.init).filter {
                !$0.hasPrefix("Command exited with non-zero status")
            }
            let peak = lines.popLast().flatMap { Int($0.dropFirst("peak ".count)) } ?? .max
            #expect(result.status == 0 || result.status == 7, "\(name): exit \(result.status)")
            #expect(lines.count <= 1, "\(name): \(lines)")
            #expect(peak < memoryBound(kilobytes: 100 * 1024), "\(name): \(peak) KB")
        }
    }

    /// `info` reads every hostile file's header and walks its structure to the end (for its damage
    /// line): the facts, or one line of error, never a crash.
    @Test func infoOnBadFilesEndsInOneLine() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, bytes) in try HostileImages.all() {
            let file = folder.appendingPathComponent(name)
            try bytes.write(to: file)
            let result = try await ImgviewProcess.run(["info", file.path])
            #expect(result.status == 0 || result.status == 7, "\(name): exit \(result.status)")
            #expect(result.stderr.split(separator: "\n").count <= 1, "\(name): \(result.stderr)")
        }
    }
}
