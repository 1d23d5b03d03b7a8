import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `imgview serve`, run as a separate process and stopped with Ctrl-C (SIGINT).
@Suite("imgview serve")
struct ServeCommandTests {
    /// Reads the catalog JSON the server prints: it ends with a lone `}` line.
    func readCatalog(from pipe: Pipe) async throws -> String {
        try await offPool {
            var text = ""
            let handle = pipe.fileHandleForReading
            while !text.hasSuffix("\n}\n") {
                let chunk = handle.availableData
                guard !chunk.isEmpty else { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
    }

    @Test func servedFolderRoundTripsThroughItsCatalog() async throws {
        let images = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images")
        let (process, stdout, stderr) = try ImgviewProcess.start(["serve", images.path])
        defer { if process.isRunning { process.terminate() } }
        let printed = try await readCatalog(from: stdout)
        let catalog = try CatalogParser(origin: .builtIn, baseURL: nil).parse(Data(printed.utf8))
        #expect(catalog.images.count == 6)
        #expect(catalog.images.first?.name == "01_grace_hopper")
        #expect(catalog.images.allSatisfy { $0.url.host == "127.0.0.1" })

        // The printed catalog, saved to a file, is a catalog imgview reads back the same.
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("served.json")
        try Data(printed.utf8).write(to: file)
        let fromFile = try await ImgviewProcess.run(["--catalog", file.path, "list", "--json"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(try CatalogParser(origin: .builtIn, baseURL: nil).parse(Data(fromFile.stdout.utf8)).images == catalog.images)

        // And the server publishes the same catalog at /catalog.json.
        let base = try #require(catalog.images.first?.url)
        let remote = try await ImgviewProcess.run([
            "--catalog", URL(string: "/catalog.json", relativeTo: base)!.absoluteString, "list", "--json",
        ])
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(try CatalogParser(origin: .builtIn, baseURL: nil).parse(Data(remote.stdout.utf8)).images == catalog.images)

        // The served bytes are the file's bytes.
        let (data, _) = try await URLSession.shared.data(from: base)
        #expect(data == (try Data(contentsOf: images.appendingPathComponent("01_grace_hopper.jpg"))))

        // Ctrl-C stops it cleanly.
        kill(process.processIdentifier, SIGINT)
        let messages = String(decoding: await readToEnd(stderr), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(messages.contains("serving 6 images from \(images.path) at http://127.0.0.1:"))
        #expect(messages.contains("imgview: stopped (interrupt)"))
    }

    /// Ctrl-\\ (SIGQUIT), which the Swift runtime would take for a crash and report at length, is a
    /// request to end like Ctrl-C: the server stops cleanly with one line.
    @Test func ctrlBackslashStopsItLikeCtrlC() async throws {
        let images = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images")
        let (process, stdout, stderr) = try ImgviewProcess.start(["serve", images.path])
        defer { if process.isRunning { process.terminate() } }
        _ = try await readCatalog(from: stdout)
        kill(process.processIdentifier, SIGQUIT)
        let messages = String(decoding: await readToEnd(stderr), as: UTF8.self)
        try await offPool { process.waitUntilExit() }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(messages)")
        #expect(messages.split(separator: "\n").last == "imgview: stopped (signal \(SIGQUIT))", "\(messages)")
        #expect(!messages.contains("Crash") && !messages.contains("Backtrace"), "\(messages)")
    }

    @Test func servingAMissingOrEmptyFolderFails() async throws {
        let missing = try await ImgviewProcess.run(["serve", "/nonexistent/folder"])
        #expect(missing.status == ExitStatus.notFound.rawValue)
        #expect(missing.errorLine == "imgview: /nonexistent/folder: no such folder")

        let empty = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        try Data("not an image".utf8).write(to: empty.appendingPathComponent("notes.jpg"))
        let none = try await ImgviewProcess.run(["serve", empty.path])
        #expect(none.status == ExitStatus.notFound.rawValue)
        #expect(none.errorLine.hasSuffix("no JPEG, PNG, GIF, WebP or BMP images in this folder"))
    }

    @Test func aBusyPortFails() async throws {
        let images = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images")
        let (first, stdout, _) = try ImgviewProcess.start(["serve", images.path])
        defer { first.terminate() }
        let catalog = try CatalogParser(origin: .builtIn, baseURL: nil).parse(Data(try await readCatalog(from: stdout).utf8))
        let port = try #require(catalog.images.first?.url.port)
        let second = try await ImgviewProcess.run(["serve", images.path, "--port", String(port)])
        #expect(second.status == ExitStatus.network.rawValue)
        #expect(second.errorLine == "imgview: cannot listen on 127.0.0.1:\(port): address in use")
    }
}
