import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Folders of this process's own that go however it ends: by returning (the owner's `defer`), or
/// by ending at once where no `defer` runs: a reader of stdout gone (`demo --report | head`) or
/// stdout that cannot be written (StandardOutput).
enum ExitCleanup {
    private static let folders = Locked<[URL]>([])

    /// Removes `folder` when the process ends early; `forget` once its owner has removed it.
    static func remove(onEarlyExit folder: URL) {
        folders.withLock { $0.append(folder) }
    }

    static func forget(_ folder: URL) {
        folders.withLock { $0.removeAll { $0 == folder } }
    }

    /// Removes every folder still registered: the process is about to end.
    static func run() {
        let pending = folders.withLock { folders in
            defer { folders = [] }
            return folders
        }
        for folder in pending { try? FileManager.default.removeItem(at: folder) }
    }
}
