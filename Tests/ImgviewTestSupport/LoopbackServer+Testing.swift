import Foundation
import ImgviewServer

/// Runs `body` with a loopback server and an empty temporary folder, stopping and removing both after.
public func withLoopbackServer(
    isolation: isolated (any Actor)? = #isolation, _ body: (LoopbackServer, URL) async throws -> Void
) async throws {
    let server = try await LoopbackServer.start()
    let folder = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    do {
        try await body(server, folder)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
