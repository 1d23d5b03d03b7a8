import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

/// `imgview URL-of-a-page`: the browser opens the images a web page shows, as tabs.
@Suite("imgview browser over a web page", .enabled(if: TmuxSession.isAvailable, "needs tmux (scripts/setup.sh installs it)"))
struct BrowserPageTmuxTests {
    /// A page's images become tabs in page order, beside an image URL whose name does not say it
    /// is one (only its head is read to tell); a request header reaches them all.
    @Test func aWebPageOpensAsTheImagesItShows() async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) {
            for (name, file, type) in [
                ("hopper", "01_grace_hopper.jpg", "image/jpeg"), ("chelsea", "03_chelsea_cat.png", "image/png"),
                ("coffee", "04_coffee.png", "image/png"),
            ] {
                let data = try Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/\(file)"))
                server.publish(.data(data, contentType: type), at: "/images/\(name)")
            }
            let html = """
                <!doctype html><html><head><title>Gallery</title></head><body>
                <img src="../images/chelsea" alt="A cat"><p><img src="/images/hopper" alt="Grace Hopper">
                <img src="data:image/png;base64,AAAA"></body></html>
                """
            server.publish(.data(Data(html.utf8), contentType: "text/html; charset=utf-8"), at: "/pages/gallery")
            let command = TmuxSession.imgviewCommand(
                [
                    server.url(for: "/pages/gallery").absoluteString, server.url(for: "/images/coffee").absoluteString,
                    "-H", "X-Api-Key: k1",
                ],
                environment: ["IMGVIEW_CACHE_DIR": folder.appendingPathComponent("cache").path])
            let session = try await TmuxSession(columns: 120, rows: 36, command: command, directory: folder)
            do {
                let screen = try await session.waitForScreen { $0.contains("source  network") }
                #expect(screen.contains("[ chelsea ]  hopper    coffee"), "\(screen)")
                #expect(screen.contains("3 images"), "\(screen)")
                try await session.send("q")
                try await session.waitForScreen { $0.contains("EXIT=0") }
            } catch {
                await session.kill()
                throw error
            }
            await session.kill()
            #expect(server.requests(for: "/pages/gallery").first?.header("x-api-key") == "k1")
            #expect(server.requests(for: "/images/chelsea").first?.header("x-api-key") == "k1")
        }
    }
}
