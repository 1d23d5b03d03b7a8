import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewCodecs
@testable import ImgviewFetching
@testable import ImgviewImaging
@testable import ImgviewPipeline
@testable import ImgviewSupport

/// Thumbnails that last and are shared with the desktop (freedesktop.org Thumbnail Managing
/// Standard 0.9.0): what imgview writes is valid for GLib, stale copies are ignored and replaced,
/// failures are remembered, and thumbnails made by GNOME's factory are used as they are.
@Suite("Freedesktop thumbnails")
struct FreedesktopThumbnailTests {
    /// A folder with an image of 640×400 and a cache home for the thumbnails.
    struct Place {
        let folder: URL
        let image: URL
        let cacheHome: URL
        var root: String { cacheHome.path + "/thumbnails" }
        var store: FreedesktopThumbnails { FreedesktopThumbnails(root: root, version: "0.1.0", workingDirectory: "/") }

        init(width: Int = 640, height: Int = 400) throws {
            folder = try temporaryFolder(prefix: "imgview-thumbs")
            cacheHome = folder.appendingPathComponent("cache")
            image = folder.appendingPathComponent("a photo #1.png")
            var bytes = [UInt8](repeating: 255, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    bytes[offset] = UInt8(x * 255 / width)
                    bytes[offset + 1] = UInt8(y * 255 / height)
                    bytes[offset + 2] = 40
                }
            }
            try FreedesktopThumbnails.encode(PixelBuffer(width: width, height: height, bytes: bytes), texts: [])!.write(to: image)
        }

        var thumbnailPath: String { thumbnailPath(.large) }

        func thumbnailPath(_ size: ThumbnailSize) -> String {
            root + "/" + size.folder + "/" + ThumbnailName.fileName(forURI: ThumbnailName.uri(ofPath: image.path))
        }

        /// A pipeline over local files that keeps thumbnails here, decoding with `decoder`; `reads`
        /// counts the files it fetches.
        func pipeline(decoder: any ImageDecoding = ImageDecoder(), reads: CountingFetcher? = nil) -> ImagePipeline {
            let fetcher = ImageFetcher(configuration: .init(dataLoader: NoNetworkLoader()))
            return ImagePipeline(
                configuration: .init(
                    fetcher: reads.map { $0.wrapping(fetcher) } ?? fetcher, decoder: decoder, scheduler: WorkerPool(width: 1),
                    thumbnails: store))
        }

        func cell(_ pipeline: ImagePipeline, size: ThumbnailSize = .large) async throws -> PreviewResponse {
            let response = try await pipeline.preview(
                for: PreviewRequest(url: image, options: RenderOptions(columns: 26, rows: 13), thumbnail: size))
            await pipeline.finishThumbnails()
            return response
        }
    }

    /// The PNG's chunks in order: type and data; nil when the signature or a length is wrong.
    static func chunks(_ data: Data) -> [(type: String, data: Data)]? {
        let bytes = [UInt8](data)
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        var chunks: [(String, Data)] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard offset + 12 + length <= bytes.count else { return nil }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            chunks.append((type, Data(bytes[(offset + 8)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        return chunks
    }

    /// The tEXt chunks before the first IDAT, as keys and values.
    static func textBeforeImage(_ data: Data) -> [String: String] {
        var texts: [String: String] = [:]
        for chunk in chunks(data) ?? [] {
            if chunk.type == "IDAT" { break }
            guard chunk.type == "tEXt", let zero = chunk.data.firstIndex(of: 0) else { continue }
            texts[String(decoding: chunk.data[..<zero], as: UTF8.self)] = String(
                decoding: chunk.data[chunk.data.index(after: zero)...], as: UTF8.self)
        }
        return texts
    }

    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    @Test func namesAreTheMD5OfTheURIGLibMakes() {
        // The standard's own example and GLib-verified escapes (note 29 §1.2).
        #expect(ThumbnailName.fileName(forURI: "file:///home/jens/photos/me.png") == "c6ee772d9e49320e97ec29a7eb5b1697.png")
        #expect(ThumbnailName.fileName(forURI: "./picture.png") == "7fd0e41c1612f860427a76c4100745a3.png")
        #expect(ThumbnailName.uri(ofPath: "/home/me/Pictures/a b.jpg") == "file:///home/me/Pictures/a%20b.jpg")
        #expect(
            ThumbnailName.uri(ofPath: "/home/me/Bilder/Grüße ☃.jpg") == "file:///home/me/Bilder/Gr%C3%BC%C3%9Fe%20%E2%98%83.jpg")
        let odd = "/tmp/x#y?z%w;[a]@b&c=d+e,f!g$h'i(j)k*l~m:n.jpg"
        #expect(ThumbnailName.uri(ofPath: odd) == "file:///tmp/x%23y%3Fz%25w%3B%5Ba%5D@b&c=d+e,f!g$h'i(j)k*l~m:n.jpg")
        #expect(ThumbnailName.fileName(forURI: ThumbnailName.uri(ofPath: odd)) == "355faaa6c553e9026a6151c0b9ffa5db.png")
        #expect(ThumbnailName.fileName(forURI: ThumbnailName.uri(ofPath: "/tmp/日本語/写真.png")) == "03cd78d6a7f9c2f1ce12531ac2f3e723.png")
        #expect(ThumbnailName.uri(ofPath: "/tmp/./a//b/../c.jpg") == "file:///tmp/a/c.jpg")
        #expect(ThumbnailName.uri(ofPath: "b/c.jpg", in: "/home/me") == "file:///home/me/b/c.jpg")
    }

    @Test func aWrittenThumbnailIsAValidPNGForTheStandardAndForGLib() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        let response = try await place.cell(place.pipeline())
        #expect(response.preview.grid.columns <= 26)
        let data = try Data(contentsOf: URL(fileURLWithPath: place.thumbnailPath))
        let chunks = try #require(Self.chunks(data))
        let header = chunks[0]
        #expect(header.type == "IHDR")
        let width = header.data.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let height = header.data.dropFirst(4).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 256 && height == 160, "fitted in 256, aspect kept")
        #expect(header.data[header.data.startIndex + 8] == 8 && header.data[header.data.startIndex + 9] == 6, "8-bit RGBA")
        #expect(header.data[header.data.startIndex + 12] == 0, "not interlaced")
        let texts = Self.textBeforeImage(data)
        let status = try FileManager.default.attributesOfItem(atPath: place.image.path)
        let mtime = Int((status[.modificationDate] as! Date).timeIntervalSince1970)
        #expect(
            texts["Thumb::URI"] == "file://"
                + place.image.path.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "#", with: "%23"))
        #expect(texts["Thumb::MTime"] == String(mtime))
        #expect(texts["Thumb::Size"] == String((status[.size] as! NSNumber).intValue))
        #expect(texts["Thumb::Mimetype"] == "image/png")
        #expect(texts["Thumb::Image::Width"] == "640" && texts["Thumb::Image::Height"] == "400")
        let file = try FileManager.default.attributesOfItem(atPath: place.thumbnailPath)
        #expect((file[.posixPermissions] as! NSNumber).intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: place.root + "/large")
        #expect((folder[.posixPermissions] as! NSNumber).intValue == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: place.root + "/large").count == 1, "no temporary left")
        // GLib (what file managers use) finds it and calls it valid.
        let info = try Self.run(
            "/usr/bin/gio", ["info", "-a", "thumbnail::*", place.image.path], environment: ["XDG_CACHE_HOME": place.cacheHome.path])
        #expect(info.contains("thumbnail::path: \(place.thumbnailPath)"), "\(info)")
        #expect(info.contains("thumbnail::is-valid: TRUE"), "\(info)")
    }

    /// The size of the PNG `data`'s IHDR.
    static func pngSize(_ data: Data) throws -> (width: Int, height: Int) {
        let header = try #require(chunks(data)?.first)
        #expect(header.type == "IHDR")
        return (
            header.data.prefix(4).reduce(0) { $0 << 8 | Int($1) }, header.data.dropFirst(4).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        )
    }

    @Test func anXLargeCellWritesAndReadsBackAnXLargeThumbnail() async throws {
        #expect(ThumbnailSize.xLarge.pixels == 512 && ThumbnailSize.xLarge.folder == "x-large", "the standard's x-large")
        let place = try Place(width: 1280, height: 800)
        defer { try? FileManager.default.removeItem(at: place.folder) }
        let first = CountingFetcher()
        let response = try await place.cell(place.pipeline(reads: first), size: .xLarge)
        #expect(first.count == 1)
        #expect(response.preview.grid.columns > 0)
        let path = place.thumbnailPath(.xLarge)
        #expect(path.hasSuffix("/thumbnails/x-large/" + ThumbnailName.fileName(forURI: ThumbnailName.uri(ofPath: place.image.path))))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let size = try Self.pngSize(data)
        #expect(size.width == 512 && size.height == 320, "fitted in 512, aspect kept: \(size)")
        let texts = Self.textBeforeImage(data)
        let status = try FileManager.default.attributesOfItem(atPath: place.image.path)
        #expect(texts["Thumb::URI"] == ThumbnailName.uri(ofPath: place.image.path))
        #expect(texts["Thumb::MTime"] == String(Int((status[.modificationDate] as! Date).timeIntervalSince1970)))
        #expect(texts["Thumb::Size"] == String((status[.size] as! NSNumber).intValue))
        #expect(texts["Thumb::Image::Width"] == "1280" && texts["Thumb::Image::Height"] == "800")
        // And `large`, the folder file managers look in.
        let large = try Self.pngSize(Data(contentsOf: URL(fileURLWithPath: place.thumbnailPath(.large))))
        #expect(large.width == 256 && large.height == 160)
        let stored = try #require(place.store.thumbnail(ofFile: place.image.path, size: .xLarge), "valid for the store")
        #expect(stored.width == 512 && stored.height == 320)

        // The next request: from the thumbnail, the file not read and no pixel decoded.
        let second = CountingFetcher()
        let again = try await place.cell(place.pipeline(decoder: HeaderOnlyDecoder(), reads: second), size: .xLarge)
        #expect(second.count == 0, "the original is not read")
        let sameShape = again.preview.grid.columns == response.preview.grid.columns && again.preview.grid.rows == response.preview.grid.rows
        #expect(sameShape, "the same picture's cells")
        #expect(again.facts.width == 1280 && again.facts.height == 800)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data, "left as it is")
    }

    @Test func aStaleCopyIsIgnoredAndReplaced() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        let status = try FileManager.default.attributesOfItem(atPath: place.image.path)
        let mtime = Int((status[.modificationDate] as! Date).timeIntervalSince1970)
        // A thumbnail of the file as it was a second earlier: solid red, which the file is not.
        let red = PixelBuffer(width: 256, height: 160, bytes: Array(repeating: [UInt8(255), 0, 0, 255], count: 256 * 160).flatMap { $0 })
        let uri = ThumbnailName.uri(ofPath: place.image.path)
        try FileManager.default.createDirectory(atPath: place.root + "/large", withIntermediateDirectories: true)
        let stale = FreedesktopThumbnails.encode(
            red,
            texts: [
                ("Thumb::URI", uri), ("Thumb::MTime", String(mtime - 1)), ("Thumb::Size", String((status[.size] as! NSNumber).intValue)),
            ])!
        try stale.write(to: URL(fileURLWithPath: place.thumbnailPath))
        #expect(place.store.thumbnail(ofFile: place.image.path, size: .large) == nil, "stale: ignored")
        _ = try await place.cell(place.pipeline())
        let replaced = try Data(contentsOf: URL(fileURLWithPath: place.thumbnailPath))
        #expect(Self.textBeforeImage(replaced)["Thumb::MTime"] == String(mtime))
        let pixels = try #require(place.store.thumbnail(ofFile: place.image.path, size: .large))
        #expect(pixels.bytes[0..<3] != [255, 0, 0], "the new thumbnail shows the file")
        // A wrong size is stale too.
        var other = Self.textBeforeImage(replaced)
        other["Thumb::Size"] = "1"
        let wrongSize = FreedesktopThumbnails.encode(red, texts: other.map { ($0.key, $0.value) })!
        try wrongSize.write(to: URL(fileURLWithPath: place.thumbnailPath))
        #expect(place.store.thumbnail(ofFile: place.image.path, size: .large) == nil)
    }

    @Test func aThumbnailStandsInForDecodingAndOneFromGNOMEIsUsedAsItIs() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        guard FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/GnomeDesktop-3.0.typelib") else {
            Issue.record("GNOME's thumbnail factory is not installed (gir1.2-gnomedesktop-3.0)")
            return
        }
        let output = try Self.run(
            "/usr/bin/python3", ["-c", Self.gnomeFactory, "large", place.image.path], environment: ["XDG_CACHE_HOME": place.cacheHome.path])
        #expect(output.contains("saved"), "\(output)")
        let made = try FileManager.default.attributesOfItem(atPath: place.thumbnailPath)
        let gnome = try Data(contentsOf: URL(fileURLWithPath: place.thumbnailPath))
        #expect(Self.textBeforeImage(gnome)["Software"] == "GNOME::ThumbnailFactory")
        let pixels = try #require(place.store.thumbnail(ofFile: place.image.path, size: .large), "GNOME's thumbnail is valid for imgview")
        #expect(max(pixels.width, pixels.height) == 256)
        // A decoder that can read headers but no pixels: the cell can only come from the thumbnail.
        let response = try await place.cell(place.pipeline(decoder: HeaderOnlyDecoder()))
        #expect(response.preview.grid.columns > 0)
        #expect(response.facts.width == 640 && response.facts.height == 400, "the facts are the image's")
        let after = try FileManager.default.attributesOfItem(atPath: place.thumbnailPath)
        #expect(after[.modificationDate] as? Date == made[.modificationDate] as? Date, "left as it is")
        #expect(try Data(contentsOf: URL(fileURLWithPath: place.thumbnailPath)) == gnome)
    }

    @Test func aThumbnailMadeBeforeStandsInForReadingTheFile() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        let first = CountingFetcher()
        _ = try await place.cell(place.pipeline(reads: first))
        #expect(first.count == 1, "no thumbnail yet: the file is read")
        // Another run: the thumbnail's keys say what the image is, so the file is not opened.
        let second = CountingFetcher()
        let response = try await place.cell(place.pipeline(decoder: HeaderOnlyDecoder(), reads: second))
        #expect(second.count == 0, "the original is not read")
        #expect(response.preview.grid.columns > 0)
        #expect(response.facts.width == 640 && response.facts.height == 400 && response.facts.format == .png, "the facts are the image's")
        #expect(
            response.facts.byteCount == (try FileManager.default.attributesOfItem(atPath: place.image.path)[.size] as! NSNumber).int64Value)
        // The file changed since: its thumbnail is stale, the file is read and the thumbnail made again.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: place.image.path)
        let third = CountingFetcher()
        _ = try await place.cell(place.pipeline(reads: third))
        #expect(third.count == 1, "a stale thumbnail does not stand in")
        let mtime = Int(
            (try FileManager.default.attributesOfItem(atPath: place.image.path)[.modificationDate] as! Date).timeIntervalSince1970)
        #expect(Self.textBeforeImage(try Data(contentsOf: URL(fileURLWithPath: place.thumbnailPath)))["Thumb::MTime"] == String(mtime))
    }

    @Test func aChangedFileNeverShowsWhatWasMadeOfItsOldBytes() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        // One pipeline throughout, as the browser's grid: its memory holds the old bytes' renders.
        let pipeline = place.pipeline()
        let old = try await place.cell(pipeline)
        #expect(old.facts.sha256.isEmpty, "a local file read for a thumbnail is known by its stamp, not hashed")
        let again = try await place.cell(pipeline).preview == old.preview
        #expect(again, "unchanged: the same render")
        // New pixels of the same size, the file dated later (Thumb::MTime is in seconds).
        let red = PixelBuffer(width: 640, height: 400, filledWith: (220, 20, 20, 255))
        try FreedesktopThumbnails.encode(red, texts: [])!.write(to: place.image)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: place.image.path)
        let changed = try await place.cell(pipeline)
        let showsOld = changed.preview == old.preview
        #expect(!showsOld, "the old render is not shown")
        // What a pipeline that never saw the old bytes makes of the new file, without its thumbnail.
        let fresh = try Place()
        defer { try? FileManager.default.removeItem(at: fresh.folder) }
        try FreedesktopThumbnails.encode(red, texts: [])!.write(to: fresh.image)
        let showsNew = try await fresh.cell(fresh.pipeline()).preview == changed.preview
        #expect(showsNew, "the new bytes' render")
        let mtime = Int(
            (try FileManager.default.attributesOfItem(atPath: place.image.path)[.modificationDate] as! Date).timeIntervalSince1970)
        #expect(Self.textBeforeImage(try Data(contentsOf: URL(fileURLWithPath: place.thumbnailPath)))["Thumb::MTime"] == String(mtime))
        // New bytes dated within the same second: the stamp's nanoseconds tell what memory holds apart.
        let blue = PixelBuffer(width: 640, height: 400, filledWith: (20, 20, 220, 255))
        try FreedesktopThumbnails.encode(blue, texts: [])!.write(to: place.image)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: TimeInterval(mtime) + 0.5)], ofItemAtPath: place.image.path)
        // Its file of the same size and second would pass the standard's check: only memory is tested here.
        try FileManager.default.removeItem(atPath: place.thumbnailPath)
        let showsRed = try await place.cell(pipeline).preview == changed.preview
        #expect(!showsRed, "a render of the red bytes is not shown for the blue")
    }

    @Test func theImageItselfIsHashedAfterItsThumbnailWasNot() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        let pipeline = place.pipeline()
        let cell = try await place.cell(pipeline)
        #expect(cell.facts.sha256.isEmpty)
        let digest = try FileDigest.sha256(of: place.image)
        let facts = try await pipeline.facts(for: ImageRequest(url: place.image))
        #expect(facts.sha256 == digest, "info and the single view get the bytes' hash")
        let view = try await pipeline.preview(for: PreviewRequest(url: place.image, options: RenderOptions(columns: 40, rows: 20)))
        #expect(view.facts.sha256 == digest)
        #expect(try await pipeline.bytes(for: ImageRequest(url: place.image)).entry.sha256 == digest)
        // A cell after the image: what is known with the hash serves it, and stays.
        _ = try await place.cell(pipeline)
        #expect(try await pipeline.facts(for: ImageRequest(url: place.image)).sha256 == digest)
    }

    @Test func aThumbnailThatDoesNotSayWhatTheImageIsLeavesTheFileToBeRead() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        let status = try FileManager.default.attributesOfItem(atPath: place.image.path)
        let mtime = Int((status[.modificationDate] as! Date).timeIntervalSince1970)
        // Valid for the file, as GNOME's are, but without the image's size and format.
        let green = PixelBuffer(width: 256, height: 160, bytes: Array(repeating: [UInt8(0), 255, 0, 255], count: 256 * 160).flatMap { $0 })
        try FileManager.default.createDirectory(atPath: place.root + "/large", withIntermediateDirectories: true)
        let keys = [("Thumb::URI", ThumbnailName.uri(ofPath: place.image.path)), ("Thumb::MTime", String(mtime))]
        try FreedesktopThumbnails.encode(green, texts: keys)!.write(to: URL(fileURLWithPath: place.thumbnailPath))
        let reads = CountingFetcher()
        let response = try await place.cell(place.pipeline(decoder: HeaderOnlyDecoder(), reads: reads))
        #expect(reads.count == 1, "the header comes from the file")
        #expect(response.facts.width == 640 && response.facts.height == 400)
        #expect(response.preview.grid.columns > 0, "the thumbnail still stands in for decoding")
    }

    @Test func aFileThatCannotBeReadLeavesAFailMarkerUntilItChanges() async throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        var broken = try Data(contentsOf: place.image)
        broken.replaceSubrange(60..<400, with: Data(repeating: 0x55, count: 340))
        try broken.write(to: place.image)
        let first = await #expect(throws: ImageDecodingError.self) { _ = try await place.cell(place.pipeline()) }
        let marker = place.root + "/fail/imgview-0.1.0/" + ThumbnailName.fileName(forURI: ThumbnailName.uri(ofPath: place.image.path))
        #expect(FileManager.default.fileExists(atPath: marker))
        let reason = try #require(first?.message)
        #expect(place.store.failure(ofFile: place.image.path) == reason, "the marker keeps why")
        // The next run says why without reading the file again.
        let again = await #expect(throws: ImageDecodingError.failedBefore(reason: reason)) {
            _ = try await place.cell(place.pipeline())
        }
        #expect(again?.message == reason + " (found before, and the file has not changed since)")
        #expect(
            ImageDecodingError.failedBefore(reason: "").message
                == "could not be read as an image before, and the file has not changed since",
            "a marker another version wrote without a reason")
        // Changed since: tried again.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: place.image.path)
        #expect(place.store.failure(ofFile: place.image.path) == nil)
    }

    @Test func aFailureReasonIsKeptAsPrintableLatin1Text() {
        #expect(FreedesktopThumbnails.latin1Text("corrupt JPEG image: bad Huffman table") == "corrupt JPEG image: bad Huffman table")
        #expect(FreedesktopThumbnails.latin1Text("line\nbreak é") == "line?break ?")
        #expect(FreedesktopThumbnails.latin1Text(String(repeating: "x", count: 1_000)).count == 400)
    }

    @Test func nothingIsReadOrWrittenForFilesInsideTheThumbnailFolders() throws {
        let place = try Place()
        defer { try? FileManager.default.removeItem(at: place.folder) }
        try FileManager.default.createDirectory(atPath: place.root + "/large", withIntermediateDirectories: true)
        let inside = place.root + "/large/x.png"
        try FileManager.default.copyItem(atPath: place.image.path, toPath: inside)
        place.store.store(
            PixelBuffer(width: 1, height: 1, bytes: [0, 0, 0, 0]), ofFile: inside, size: .large,
            header: ImageHeader(format: .png, storedWidth: 640, storedHeight: 400, orientation: .up))
        #expect(try FileManager.default.contentsOfDirectory(atPath: place.root + "/large") == ["x.png"])
    }

    /// GNOME's factory (what Nautilus uses) making a `large` thumbnail (note 29 §1.7).
    static let gnomeFactory = """
        import sys, os, gi
        gi.require_version('GnomeDesktop', '3.0')
        from gi.repository import GnomeDesktop, Gio
        size = {'normal': GnomeDesktop.DesktopThumbnailSize.NORMAL, 'large': GnomeDesktop.DesktopThumbnailSize.LARGE}[sys.argv[1]]
        factory = GnomeDesktop.DesktopThumbnailFactory.new(size)
        for path in sys.argv[2:]:
            file = Gio.File.new_for_path(os.path.abspath(path))
            info = file.query_info('standard::content-type,time::modified', 0, None)
            mtime = info.get_attribute_uint64('time::modified')
            pixbuf = factory.generate_thumbnail(file.get_uri(), info.get_content_type(), None)
            factory.save_thumbnail(pixbuf, file.get_uri(), mtime, None)
            print('saved', factory.lookup(file.get_uri(), mtime))
        """
}

/// Counts the fetches of the fetcher it wraps: how many times a pipeline read a file.
final class CountingFetcher: Sendable {
    private let fetches = Locked(0)

    var count: Int { fetches.withLock { $0 } }

    func wrapping(_ fetcher: any ImageFetching) -> any ImageFetching {
        Counted(inner: fetcher, counter: self)
    }

    private struct Counted: ImageFetching {
        let inner: any ImageFetching
        let counter: CountingFetcher

        func fetch(_ request: ImageRequest, progress: @escaping TransferProgress, body: BodyTap?) async throws -> ImageResponse {
            counter.fetches.withLock { $0 += 1 }
            return try await inner.fetch(request, progress: progress, body: body)
        }

        func discard(_ url: URL) { inner.discard(url) }
    }
}

/// Reads headers as the codecs do, but decodes no pixels.
struct HeaderOnlyDecoder: ImageDecoding {
    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        try ImageDecoder().inspect(bytes, probe: probe)
    }

    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        throw .unsupportedFormat(header.format)
    }
}
