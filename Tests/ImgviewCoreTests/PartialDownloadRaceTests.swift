import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching

/// A partial download's lock against what removes its name: `cache clear`, and the download of
/// the same URL that finished first.
@Suite("Partial downloads racing their removal")
struct PartialDownloadRaceTests {
    /// Writers open, fill and finish the partial of one URL while `removeAll` runs in a loop: every
    /// partial a writer gets can be finished, because the lock it holds is on the file the name
    /// leads to (a lock taken on a file whose name had just gone locked nothing).
    @Test func aLockedPartialKeepsItsName() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(directory: folder)
        let url = URL(string: "http://h/photo.jpg")!
        let body = Data(repeating: 0xA5, count: 4096)
        let failures = Failures()
        let writersDone = DispatchGroup()
        let stop = Flag()
        for _ in 0..<3 {
            writersDone.enter()
            Thread.detachNewThread {
                defer { writersDone.leave() }
                for _ in 0..<400 {
                    guard let partial = cache.partial(for: url) else { continue }
                    do {
                        try partial.file.write(body)
                        let whole = try partial.complete()
                        whole.discard()
                    } catch {
                        failures.add("\(error)")
                    }
                }
            }
        }
        let clearing = DispatchGroup()
        clearing.enter()
        Thread.detachNewThread {
            defer { clearing.leave() }
            while !stop.isSet { _ = try? cache.removeAll() }
        }
        writersDone.wait()
        stop.set()
        clearing.wait()
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
    }
}

/// Errors gathered from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.withLock { list.append(failure) } }
    var all: [String] { lock.withLock { list } }
}

/// A stop signal for a thread.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
