import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// `cache clear` and `cache prune`. Each decides what to remove under the lock, from what is on
// disk at that moment, so a download that another process finishes meanwhile is either seen
// whole or not at all, and a download still running (its temporary file's process is alive)
// is left alone.
extension DiskCache {
    /// Removes every entry and blob, and abandoned temporary files. The counters stay.
    public func removeAll() throws -> RemovalReport {
        try withLock {
            var report = RemovalReport()
            for name in (try? FileManager.default.contentsOfDirectory(atPath: entriesFolder.path)) ?? []
            where name.hasSuffix(".json") && !name.hasPrefix(".") {
                if unlink(entriesFolder.appendingPathComponent(name).path) == 0 { report.entryCount += 1 }
            }
            for (hash, size) in blobSizes() where unlink(blobURL(sha256: hash).path) == 0 {
                report.freedBytes += size
            }
            removeAbandonedFiles(into: &report)
            return report
        }
    }

    /// Removes the entries for `urls` (and their blobs, unless another entry shares one).
    ///
    /// Returns the report and the URLs that had no entry.
    public func remove(_ urls: [URL]) throws -> (report: RemovalReport, notCached: [URL]) {
        try withLock {
            var report = RemovalReport()
            var notCached: [URL] = []
            for url in urls {
                guard let entry = entry(for: url) else {
                    notCached.append(url)
                    continue
                }
                unlink(entryURL(for: url).path)
                report.entries.append(entry)
            }
            report.entryCount = report.entries.count
            removeUnreferencedBlobs(into: &report, removedEntries: report.entries, referenced: Set(entries().map(\.sha256)))
            return (report, notCached)
        }
    }

    /// Removes what `selection` picks, unreferenced blobs and abandoned temporary files; counts the
    /// entries as evictions.
    public func prune(_ selection: PruneSelection) throws -> RemovalReport {
        try withLock {
            var report = RemovalReport()
            let all = entries()
            report.entries = selection.victims(among: all, now: now())
            let removed = Set(report.entries.filter { unlink(entryURL(for: $0.url).path) == 0 }.map(\.url))
            report.entryCount = report.entries.count
            // What stays referenced is what was read minus what went: no second read of every entry.
            let referenced = Set(all.lazy.filter { !removed.contains($0.url) }.map(\.sha256))
            removeUnreferencedBlobs(into: &report, removedEntries: report.entries, referenced: referenced)
            removeAbandonedFiles(into: &report)
            addToCounters(CacheCounters(evictions: Int64(report.entryCount)))
            return report
        }
    }

    /// Deletes blobs whose hash is not in `referenced` (those of the entries on disk); under the
    /// lock, where no writer is between renaming a blob into place and writing its entry. Blobs of
    /// `removedEntries` count as freed by them, the others as unreferenced.
    private func removeUnreferencedBlobs(into report: inout RemovalReport, removedEntries: [CacheEntry], referenced: Set<String>) {
        let removed = Set(removedEntries.map(\.sha256))
        for (hash, size) in blobSizes() where !referenced.contains(hash) {
            guard unlink(blobURL(sha256: hash).path) == 0 else { continue }
            report.freedBytes += size
            if !removed.contains(hash) { report.unreferencedBlobs += 1 }
        }
    }

    /// Deletes temporary files whose process is gone: downloads in `tmp/`, metadata and counter writes.
    func removeAbandonedFiles(into report: inout RemovalReport) {
        for path in abandonedFiles() {
            var info = stat()
            let size = stat(path, &info) == 0 ? Int64(info.st_size) : 0
            if unlink(path) == 0 {
                report.abandonedFiles += 1
                report.freedBytes += size
            }
        }
    }

    /// Removes this process's own files from `tmp/`, for a command about to exit.
    ///
    /// Each is removed when its owner goes, but `exit` runs no deinit: a response still referenced
    /// somewhere (a coalesced task's result, a loader thread not yet finished) would leave its file
    /// for the next upkeep to find.
    public func removeTemporaryFilesOfThisProcess() {
        let prefix = "\(getpid())-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder.path)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".part") {
            unlink(temporaryFolder.appendingPathComponent(name).path)
        }
    }

    /// Paths of downloads in `tmp/` whose process is gone.
    func abandonedDownloads() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder.path)) ?? []).filter(TemporaryFile.isAbandoned)
            .map { temporaryFolder.appendingPathComponent($0).path }
    }

    /// Paths of temporary files whose process is gone.
    func abandonedFiles() -> [String] {
        var paths = abandonedDownloads()
        for folder in [entriesFolder, root] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where AtomicFile.isAbandoned(name) {
                paths.append(folder.appendingPathComponent(name).path)
            }
        }
        return paths
    }
}
