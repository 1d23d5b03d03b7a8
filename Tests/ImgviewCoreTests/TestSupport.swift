import Foundation
import ImgviewServer
import Testing

@testable import ImgviewCore

/// Bytes that sniff as a PNG, of any length, different per seed.
func fakePNG(size: Int, seed: UInt8 = 1) -> Data {
    var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    data.append(contentsOf: (0..<max(0, size - 8)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) })
    return data
}

/// A fresh temporary folder.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("imgview-core-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A wall clock a test moves by hand, for freshness.
final class ManualDate: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Polls `condition` until it holds, failing after `timeout`.
func eventually(
    isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(5), _ condition: () -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Runs blocking `work` on a thread of its own, off Swift's cooperative pool.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Runs `body` with a loopback server and an empty temporary folder, stopping and removing both after.
func withLoopbackServer(_ body: (LoopbackServer, URL) async throws -> Void) async throws {
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

/// The repository's root, for the bundled assets.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
