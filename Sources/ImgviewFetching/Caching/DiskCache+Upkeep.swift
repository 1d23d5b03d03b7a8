import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

// `cache clear` and `cache prune`. Each decides what to remove under the lock, from what is on
// disk at that moment, so a download that another process finishes meanwhile is either seen
// whole or not at all, and a download still running (its temporary file's process is alive)
// is left alone. Everything is removed by name inside the cache's own folders: a link planted
// in the cache is removed itself, never followed.
extension DiskCache {
    /// Removes every entry, blob and thumbnail, and abandoned temporary files. The counters stay.
    public func removeAll() throws -> RemovalReport {
        try withLock {
            var report = RemovalReport()
            for name in entriesFolder.names() where name.hasSuffix(".json") && !name.hasPrefix(".") {
                if entriesFolder.removeItem(name) { report.entryCount += 1 }
            }
            for shardName in blobsFolder.names() {
                guard let shard = try? blobsFolder.subdirectory(shardName) else {
                    // Not a folder (a link, a stray file): not the cache's, removed itself.
                    blobsFolder.removeItem(shardName)
                    continue
                }
                for name in shard.names() {
                    let status = shard.status(of: name)
                    if shard.removeItem(name), status?.type == .regular, !name.hasPrefix(".") { report.freedBytes += status?.size ?? 0 }
                }
            }
            report.freedBytes += removeThumbnails(notIn: []).bytes
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
                entriesFolder.removeItem(Self.entryName(for: url))
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
            let removed = Set(report.entries.filter { entriesFolder.removeItem(Self.entryName(for: $0.url)) }.map(\.url))
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
        // Thumbnails first, so their bytes are counted (a blob's removal takes them silently).
        report.freedBytes += removeThumbnails(notIn: referenced).bytes
        for (hash, size) in blobSizes() where !referenced.contains(hash) {
            guard removeBlob(hash) else { continue }
            report.freedBytes += size
            if !removed.contains(hash) { report.unreferencedBlobs += 1 }
        }
    }

    /// Deletes temporary files whose process is gone: downloads in `tmp/`, metadata and counter writes.
    func removeAbandonedFiles(into report: inout RemovalReport) {
        for (folder, name) in abandonedFiles() {
            let status = folder.status(of: name)
            let isPartialBytes = folder === temporaryFolder && PartialDownload.isPartial(name) && !name.hasSuffix(".json")
            if isPartialBytes ? removeIdlePartial(name) : folder.removeItem(name) {
                report.abandonedFiles += 1
                if status?.type == .regular { report.freedBytes += status?.size ?? 0 }
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
        for name in temporaryFolder.names() where name.hasPrefix(prefix) && name.hasSuffix(".part") {
            temporaryFolder.removeItem(name)
        }
    }

    /// Names in `tmp/` of downloads whose process is gone.
    func abandonedDownloads() -> [String] {
        temporaryFolder.names().filter(TemporaryFile.isAbandoned)
    }

    /// Temporary files whose process is gone, with the folder each is in.
    func abandonedFiles() -> [(folder: Directory, name: String)] {
        var files = abandonedDownloads().map { (folder: temporaryFolder, name: $0) }
        files += abandonedPartials().map { (folder: temporaryFolder, name: $0) }
        for folder in [entriesFolder, root, temporaryFolder] {
            files += folder.names().filter(AtomicFile.isAbandoned).map { (folder: folder, name: $0) }
        }
        files += abandonedThumbnailWrites()
        // Blobs are staged beside their final name, in the shard.
        for shardName in blobsFolder.names() {
            guard let shard = try? blobsFolder.subdirectory(shardName) else { continue }
            files += shard.names().filter(AtomicFile.isAbandoned).map { (folder: shard, name: $0) }
        }
        return files
    }

    /// Partial downloads nobody will continue: untouched for `PartialDownload.maximumAge`, or one
    /// half of a pair without the other (bytes no process is writing, metadata without bytes).
    func abandonedPartials() -> [String] {
        let names = temporaryFolder.names().filter(PartialDownload.isPartial)
        let present = Set(names)
        let oldest = now().addingTimeInterval(-PartialDownload.maximumAge)
        return names.filter { name in
            guard let status = temporaryFolder.status(of: name) else { return false }
            if Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec)) < oldest { return !isBeingWritten(name) }
            if name.hasSuffix(".json") { return !present.contains(String(name.dropLast(5))) }
            return !present.contains(name + ".json") && !isBeingWritten(name)
        }
    }

    /// Removes the partial's bytes `name` holding their lock, unless a process writes them now: a
    /// writer that opened the file meanwhile finds its name gone when it gets the lock, and opens
    /// a new one, rather than writing bytes no name leads to.
    private func removeIdlePartial(_ name: String) -> Bool {
        guard let status = temporaryFolder.status(of: name) else { return false }
        // A link or folder planted under the name is nobody's partial: it goes as it is.
        guard status.type == .regular else { return temporaryFolder.removeItem(name) }
        guard let file = PartialDownload.lockedFile(name, in: temporaryFolder, creating: false) else { return false }
        defer { try? file.close() }
        return temporaryFolder.removeItem(name)
    }

    /// Whether a process holds the partial's lock: it is writing the bytes now.
    private func isBeingWritten(_ name: String) -> Bool {
        guard let file = try? temporaryFolder.openRegular(name.hasSuffix(".json") ? String(name.dropLast(5)) : name, flags: O_RDONLY)
        else { return false }
        defer { try? file.close() }
        guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else { return true }
        _ = flock(file.rawValue, LOCK_UN)
        return false
    }
}
