import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// Natural name order, folder listings told by signature, and command-line arguments as browse sources.
@Suite("Local images")
struct LocalImagesTests {
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
    let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16])

    @Test func namesSortAsPeopleCount() {
        let names = ["img10.jpg", "img2.jpg", "IMG1.jpg", "img1.jpg", "img02.jpg", "a/b.jpg", "a b.jpg", "a/c/d.jpg", "b.jpg", "img1a.jpg"]
        #expect(
            names.sorted(by: NaturalOrder.areInIncreasingOrder) == [
                "a/b.jpg", "a/c/d.jpg", "a b.jpg", "b.jpg", "IMG1.jpg", "img1.jpg", "img1a.jpg", "img2.jpg", "img02.jpg", "img10.jpg",
            ])
        #expect(NaturalOrder.compare("x99999999999999999999999", "x100000000000000000000000") < 0, "numbers longer than Int still compare")
        #expect(NaturalOrder.compare("same", "same") == 0)
        #expect(NaturalOrder.compare("2", "10") < 0 && NaturalOrder.compare("10", "2") > 0)
    }

    /// A folder of images and other files; returns it (the caller removes it).
    func makeFolder() throws -> URL {
        let folder = try temporaryFolder()
        for name in ["shot10.png", "shot2.png", "shot1.png"] { try png.write(to: folder.appendingPathComponent(name)) }
        try jpeg.write(to: folder.appendingPathComponent("no-extension"))
        try Data("hello".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try Data("not a png".utf8).write(to: folder.appendingPathComponent("fake.png"))
        try png.write(to: folder.appendingPathComponent(".hidden.png"))
        try Data().write(to: folder.appendingPathComponent("empty.jpg"))
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try png.write(to: sub.appendingPathComponent("inner.png"))
        // A link to a folder is never walked (it could lead back up); a link to a file is a file.
        try FileManager.default.createSymbolicLink(at: sub.appendingPathComponent("loop"), withDestinationURL: folder)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("link-to-shot1"), withDestinationURL: folder.appendingPathComponent("shot1.png"))
        return folder
    }

    func names(_ sources: [BrowseSource], recursive: Bool = false) -> [String] {
        var listing = ImageListing(sources: sources, recursive: recursive)
        var names: [String] = []
        while let image = listing.next() { names.append(image.name) }
        return names
    }

    @Test func aFolderListsItsImagesByTheirBytesInNaturalOrder() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(names([.folder(folder)]) == ["link-to-shot1", "no-extension", "shot1.png", "shot2.png", "shot10.png"])
        #expect(
            names([.folder(folder)], recursive: true) == [
                "link-to-shot1", "no-extension", "shot1.png", "shot2.png", "shot10.png", "sub/inner.png",
            ])
        var listing = ImageListing(sources: [.folder(folder)], recursive: false)
        let first = listing.next()
        #expect(first?.url == folder.appendingPathComponent("link-to-shot1"))
        // empty.jpg, fake.png, then the image: files are read as the listing reaches them, not all up front.
        #expect(listing.examined == 3)
    }

    /// A name that is not UTF-8 (Latin-1 `café`, say) is listed, opened by its own bytes and shown
    /// with U+FFFD; it was left out of folders silently, and could not be opened.
    @Test func namesThatAreNotUTF8AreListedAndRead() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".png".utf8)
        let url = folder.appendingPathBytes(name)
        let descriptor = url.withFilePath { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        #expect(descriptor >= 0)
        _ = png.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        try png.write(to: folder.appendingPathComponent("b.png"))

        var listing = ImageListing(sources: [.folder(folder)], recursive: false)
        let images = Array(AnyIterator { listing.next() })
        #expect(images.map(\.name) == ["b.png", "caf\u{FFFD}.png"])
        let found = try #require(images.last?.url)
        #expect(found.filePathBytes == folder.filePathBytes + [UInt8(ascii: "/")] + name)
        #expect(found.displayPath == folder.path + "/caf\u{FFFD}.png")
        #expect(try LocalFileReader(limit: 1 << 20).read(found).data == png)
        // The same URL from a path typed relative to the folder, through `..` and `.`.
        #expect(
            URL(filePathBytes: Array("../x/./".utf8) + name, relativeTo: folder.appendingPathComponent("x"))
                == URL(filePathBytes: name, relativeTo: folder.appendingPathComponent("x")))
        #expect(URL(filePathBytes: name, relativeTo: folder) == found)
        #expect(found.location == found.displayPath)
    }

    @Test func sourcesKeepTheirOrderAndFilesAreCheckedToo() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let web = URL(string: "https://example.org/photos/cat.jpg")!
        let named = AppImage(name: "image0", title: "Tutorial", url: URL(string: "https://example.org/0.jpg")!)
        let sources: [BrowseSource] = [
            .file(folder.appendingPathComponent("shot2.png")), .url(web), .file(folder.appendingPathComponent("notes.txt")),
            .catalogImage(named), .folder(folder.appendingPathComponent("sub")),
        ]
        #expect(names(sources) == ["shot2.png", "cat.jpg", "image0", "inner.png"])
        #expect(ImageListing.tabName(for: URL(string: "https://example.org/")!) == "example.org")
    }

    @Test func argumentsResolveToURLsPathsAndCatalogNames() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalogLoads = Locked(0)
        let catalog = Catalog(images: [AppImage(name: "image0", url: URL(string: "https://example.org/0.jpg")!)], origin: .builtIn)
        func resolveAll(_ arguments: [String]) async throws -> BrowseArguments {
            try await BrowseSource.resolve(arguments, currentDirectory: folder) {
                catalogLoads.withLock { $0 += 1 }
                return catalog
            }
        }
        func resolve(_ arguments: [String]) async throws -> [BrowseSource] {
            try await resolveAll(arguments).sources
        }
        let local = try await resolve(["shot1.png", "sub", "https://example.org/x.png", "file://\(folder.path)/shot2.png"])
        #expect(
            local == [
                .file(folder.appendingPathComponent("shot1.png")), .folder(folder.appendingPathComponent("sub")),
                .url(URL(string: "https://example.org/x.png")!), .file(folder.appendingPathComponent("shot2.png")),
            ])
        #expect(catalogLoads.withLock { $0 } == 0, "paths and URLs need no catalog")
        #expect(try await resolve(["image0", "image0"]) == [.catalogImage(catalog.images[0]), .catalogImage(catalog.images[0])])
        #expect(catalogLoads.withLock { $0 } == 1, "loaded once, for the names")
        let invalid = await #expect(throws: ImageReferenceError.self) { try await resolve(["ftp://example.org/a.png"]) }
        #expect(invalid?.exitStatus == .usage)
    }

    /// What names nothing, and a file named on its own that is not an image, are left out with
    /// their reasons, and the rest opens; a missing path stopped the browser from opening, and a
    /// named non-image was dropped without a word.
    @Test func argumentsThatNameNoImageAreLeftOutAndTheRestOpen() async throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = Catalog(images: [AppImage(name: "image0", url: URL(string: "https://example.org/0.jpg")!)], origin: .builtIn)
        let resolved = try await BrowseSource.resolve(
            ["missing.png", "shot1.png", "notes.txt", "nothing-here", "file:///nonexistent/a.png", "sub"], currentDirectory: folder
        ) { catalog }
        #expect(resolved.sources == [.file(folder.appendingPathComponent("shot1.png")), .folder(folder.appendingPathComponent("sub"))])
        #expect(resolved.leftOut.map(\.argument) == ["missing.png", "notes.txt", "nothing-here", "file:///nonexistent/a.png"])
        #expect(resolved.leftOut.map(\.reason) == [.notFound, .notAnImage, .notFound, .notFound])
        #expect(resolved.leftOut.map(\.error.exitStatus) == [.notFound, .badImage, .notFound, .notFound])
        #expect(resolved.leftOut[1].error.message == "\(folder.path)/notes.txt: not an image")
    }

    @Test func aBigListingOpensWithTheFirstImagesAndStreamsTheRest() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 1...300 { try png.write(to: folder.appendingPathComponent("p\(index).png")) }
        let (first, rest) = await BackgroundListing.start(
            ImageListing(sources: [.folder(folder)], recursive: false), firstCount: 10, batchSize: 64)
        #expect(first.map(\.name) == (1...10).map { "p\($0).png" })
        var all = first
        for await batch in try #require(rest) {
            #expect(batch.count <= 64)
            all += batch
        }
        #expect(all.map(\.name) == (1...300).map { "p\($0).png" })

        let (small, none) = await BackgroundListing.start(ImageListing(sources: [.folder(folder)], recursive: false), firstCount: 1000)
        #expect(small.count == 300 && none == nil, "a listing that fits in the first batch has no rest")
    }
}
