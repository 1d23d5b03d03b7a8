import Foundation
import ImgviewCurl
import Testing

@testable import ImgviewFetching

@Suite("Catalog sources")
struct CatalogSourceTests {
    @Test func urlsAndPathsAreToldApart() {
        let here = URL(fileURLWithPath: "/work")
        #expect(CatalogSource(argument: "https://h/c.json", currentDirectory: here) == .remote(URL(string: "https://h/c.json")!))
        #expect(CatalogSource(argument: "HTTP://h/c.json", currentDirectory: here) == .remote(URL(string: "HTTP://h/c.json")!))
        #expect(CatalogSource(argument: "c.json", currentDirectory: here) == .file(URL(fileURLWithPath: "/work/c.json")))
        #expect(CatalogSource(argument: "/a/c.json", currentDirectory: here) == .file(URL(fileURLWithPath: "/a/c.json")))
        #expect(CatalogSource(argument: "file:///a/c.json", currentDirectory: here) == .file(URL(fileURLWithPath: "/a/c.json")))
    }

    @Test func aMissingFileIsACatalogError() async {
        let error = await #expect(throws: CatalogError.self) {
            try await CatalogLoader(loader: CurlDataLoader()).loadFirstPage(from: .file(URL(fileURLWithPath: "/nonexistent/c.json")))
        }
        #expect(error?.message == "catalog /nonexistent/c.json: cannot be read: no such file")
    }

    @Test func aFolderIsNotACatalog() async {
        let error = await #expect(throws: CatalogError.self) {
            try await CatalogLoader(loader: CurlDataLoader()).loadFirstPage(from: .file(URL(fileURLWithPath: "/tmp")))
        }
        #expect(
            error?.message
                == "catalog /tmp: cannot be read: is a folder, not a catalog file (to browse the images in it: imgview /tmp)")
    }
}
