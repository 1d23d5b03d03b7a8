import ImgviewSupport
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Temporary folders that go on every exit path: the normal one (their owner's `defer`), a
/// request to end, too slow a wind-down, and a broken pipe (`demo --report | head`). Only a
/// crash, where nothing but async-signal-safe calls may run, leaves one behind.
enum ExitCleanup {
    /// The folders to remove; nil once `runAll` has run: the process is ending, and no folder
    /// may be made after it.
    private static let folders = Locked<[(id: Int, path: String)]?>([])
    private static let counter = Locked(0)

    /// Makes a folder with `make` and registers it in one step under the lock `runAll` takes, so a
    /// request to end that comes meanwhile removes it too, instead of finding the list without it.
    static func add(_ make: () throws -> String) throws -> Int {
        let id = counter.withLock { value in
            defer { value += 1 }
            return value
        }
        try folders.withLock { folders in
            guard folders != nil else { throw Errno.interrupted }
            folders?.append((id, try make()))
        }
        return id
    }

    /// Removes folder `id` now and forgets it.
    static func remove(_ id: Int) {
        let path = folders.withLock { folders -> String? in
            defer { folders?.removeAll { $0.id == id } }
            return folders?.first { $0.id == id }?.path
        }
        if let path { removeFolder(path) }
    }

    /// Held while `runAll` removes, so that a second exit path (a failure the removal itself
    /// caused on another thread) waits for the folders to be gone before the process ends.
    private static let removal = ThreadLock()

    /// Removes every folder still registered; returns once they are gone, whichever thread
    /// removes them.
    static func runAll() {
        removal.lock()
        defer { removal.unlock() }
        let paths = folders.withLock { folders in
            defer { folders = nil }
            return folders?.map(\.path) ?? []
        }
        for path in paths { removeFolder(path) }
    }

    private static func removeFolder(_ path: String) {
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, let folder = try? Directory.open(parent) else { return }
        // Other threads may still be writing inside while a request to end removes it (a cache
        // making its lock file): a file made behind the removal leaves a folder that is not
        // empty, so it is removed again. Once the folder itself is gone, nothing can be made in
        // it, for everything in it is made relative to folders that no longer exist.
        for _ in 0..<20 where folder.status(of: name) != nil {
            folder.removeItem(name)
        }
    }
}

extension ProcessSignals {
    /// Makes a new, private temporary folder (`$TMPDIR`, else /tmp) named `prefix-XXXXXX` that goes
    /// on every exit path but a crash; `TemporaryFolder.remove()` takes it away sooner.
    public static func makeTemporaryFolder(prefix: String) throws(Errno) -> TemporaryFolder {
        install()
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var path = ""
        do {
            let id = try ExitCleanup.add {
                var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
                guard mkdtemp(&template) != nil else { throw Errno(rawValue: errno) }
                path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return path
            }
            return TemporaryFolder(path: path, id: id)
        } catch let error as Errno {
            throw error
        } catch {
            throw Errno.ioError
        }
    }
}

/// A temporary folder `ProcessSignals` removes on every exit path.
public final class TemporaryFolder: Sendable {
    public let path: String
    private let id: Int

    init(path: String, id: Int) {
        self.path = path
        self.id = id
    }

    /// Removes the folder and everything in it now.
    public func remove() {
        ExitCleanup.remove(id)
    }
}
