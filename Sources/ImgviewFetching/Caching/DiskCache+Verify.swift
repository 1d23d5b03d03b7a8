internal import Crypto
import ImgviewSupport
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

// `cache verify`: rehash every blob, find metadata and files that do not belong, remove them.
//
// Hashing a large cache takes seconds, too long to keep downloads waiting, so the scan runs
// without the lock; everything it suspects is checked again under the lock before it is
// removed, since another process may have repaired it (a download of the same bytes renames
// a good blob over a damaged one) or referenced it (a blob renamed into place a moment before
// its entry) in the meantime. Temporary files of processes that are gone, and blobs no entry
// references (a process stopped between renaming a blob into place and writing its entry), are
// upkeep, not damage: they are removed and counted, but a cache that had only those is sound.
extension DiskCache {
    /// Checks every entry, blob and temporary file; removes what is damaged or orphaned, and
    /// measures the size ledger again.
    public func verify() throws -> VerifyReport {
        var report = VerifyReport()
        var suspects = scan(into: &report)
        let abandoned = abandonedFiles()
        guard !suspects.isEmpty || !abandoned.isEmpty else {
            // A sound cache still gets its size ledger measured again, whatever wrote to it.
            if !isReadOnly { try? withLock {} }
            return report
        }
        // What stands in the lock's place must go before the lock can be taken at all.
        if let index = suspects.firstIndex(where: \.isAtLock), let problem = repair(suspects.remove(at: index)) {
            report.problems.append(problem)
        }
        try withLock {
            report.problems += confirm(suspects, into: &report)
            var removal = RemovalReport()
            removeAbandonedFiles(into: &removal)
            report.abandonedFiles = removal.abandonedFiles
        }
        return report
    }

    /// Something the scan found wrong, to be confirmed under the lock.
    private enum Suspect {
        case unreadableEntry(name: String, reason: String)
        case missingBlob(CacheEntry)
        case damagedBlob(sha256: String, entries: [CacheEntry], reason: String)
        case orphanedBlob(shard: String, name: String)
        /// A thumbnail whose body has no blob or no entry, or a file in their folder that is none.
        case orphanedThumbnail(shard: String, name: String)
        /// A link, FIFO, device, socket or folder where a file belongs (or a non-folder among the
        /// shards), or a hard link where a file the cache writes in place belongs.
        case notAFile(folder: Directory, relativePath: String, name: String, expectsFolder: Bool)
        case unreadableCounters

        var isAtLock: Bool {
            if case .notAFile(_, "v1/lock", _, _) = self { return true }
            return false
        }
    }

    private func scan(into report: inout VerifyReport) -> [Suspect] {
        var suspects: [Suspect] = []
        var byHash: [String: [CacheEntry]] = [:]
        for name in entriesFolder.names() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            switch readEntry(named: name) {
            case .gone: continue
            case .notAFile, .hardLink:
                suspects.append(.notAFile(folder: entriesFolder, relativePath: "v1/entries/" + name, name: name, expectsFolder: false))
            case .unreadable(let reason): suspects.append(.unreadableEntry(name: name, reason: reason))
            case .entry(let entry):
                report.entries += 1
                byHash[entry.sha256, default: []].append(entry)
            }
        }

        var present: Set<String> = []
        for shardName in blobsFolder.names() {
            guard let shard = try? blobsFolder.subdirectory(shardName) else {
                suspects.append(.notAFile(folder: blobsFolder, relativePath: "v1/blobs/" + shardName, name: shardName, expectsFolder: true))
                continue
            }
            for name in shard.names() where !name.hasPrefix(".") {
                guard let status = shard.status(of: name) else { continue }
                guard status.type == .regular else {
                    suspects.append(
                        .notAFile(folder: shard, relativePath: "v1/blobs/\(shardName)/\(name)", name: name, expectsFolder: false))
                    continue
                }
                guard let entries = byHash[name], shardName == Self.shard(of: name) else {
                    suspects.append(.orphanedBlob(shard: shardName, name: name))
                    continue
                }
                present.insert(name)
                report.blobs += 1
                switch Self.hash(name, in: shard) {
                case .none:
                    // Evicted by another process since the listing: not damage.
                    if shard.status(of: name) != nil {
                        suspects.append(.damagedBlob(sha256: name, entries: entries, reason: "cannot be read"))
                    }
                case .some(let (digest, size)):
                    report.bytes += size
                    if digest != name {
                        suspects.append(.damagedBlob(sha256: name, entries: entries, reason: "content does not match its SHA-256"))
                    }
                }
            }
        }
        if let thumbnails = thumbnailsFolder {
            for shardName in thumbnails.names() where thumbnails.status(of: shardName)?.type != .directory {
                suspects.append(
                    .notAFile(folder: thumbnails, relativePath: "v1/thumbnails/" + shardName, name: shardName, expectsFolder: true))
            }
            for file in thumbnailFiles() {
                guard file.status.type == .regular else {
                    if let shard = try? thumbnails.subdirectory(file.shardName) {
                        suspects.append(
                            .notAFile(
                                folder: shard, relativePath: "v1/thumbnails/\(file.shardName)/\(file.name)", name: file.name,
                                expectsFolder: false))
                    }
                    continue
                }
                if let body = file.body, present.contains(body.sha256) {
                    report.thumbnails += 1
                } else {
                    suspects.append(.orphanedThumbnail(shard: file.shardName, name: file.name))
                }
            }
        }
        for (hash, entries) in byHash where !present.contains(hash) {
            suspects += entries.map(Suspect.missingBlob)
        }
        for name in temporaryFolder.names() where temporaryFolder.status(of: name).map({ $0.type != .regular }) == true {
            if TemporaryFile.isAbandoned(name) { continue }  // upkeep removes it as abandoned
            suspects.append(.notAFile(folder: temporaryFolder, relativePath: "v1/tmp/" + name, name: name, expectsFolder: false))
        }
        for name in [Self.countersName, Self.hitsName, Self.missesName, CacheSizeLedger.name, "lock"] {
            if let status = root.status(of: name), !Self.isOwnFile(status) {
                suspects.append(.notAFile(folder: root, relativePath: "v1/" + name, name: name, expectsFolder: false))
            }
        }
        if case .some(nil) = storedCounters() { suspects.append(.unreadableCounters) }
        return suspects
    }

    /// Whether `status` is a file the cache may write in place: regular, with no other name.
    private static func isOwnFile(_ status: Stat) -> Bool {
        status.type == .regular && status.linkCount == 1
    }

    /// Removes what stands where a file or folder belongs, if it still does; the problem it was.
    private func repair(_ suspect: Suspect) -> CacheProblem? {
        guard case .notAFile(let folder, let relativePath, let name, let expectsFolder) = suspect,
            let status = folder.status(of: name)
        else { return nil }
        let isRight = expectsFolder ? status.type == .directory : Self.isOwnFile(status)
        guard !isRight else { return nil }
        let what =
            status.type == .regular && !expectsFolder ? "a hard link (a file with another name elsewhere)" : Self.describe(status.type)
        guard folder.removeItem(name) else { return nil }
        return CacheProblem(kind: .notAFile, path: relativePath, detail: "\(what) where a \(expectsFolder ? "folder" : "file") belongs")
    }

    /// Removes each suspect that is still wrong; runs under the lock. Orphaned blobs are counted
    /// in `report` as upkeep.
    private func confirm(_ suspects: [Suspect], into report: inout VerifyReport) -> [CacheProblem] {
        var problems: [CacheProblem] = []
        // Read afresh: under the lock this is every entry there is, so a blob none of them names is an orphan.
        let referenced = Set(entries().map(\.sha256))
        for suspect in suspects {
            switch suspect {
            case .unreadableEntry(let name, let reason):
                guard case .unreadable = readEntry(named: name) else { continue }
                if entriesFolder.removeItem(name) {
                    problems.append(CacheProblem(kind: .unreadableEntry, path: "v1/entries/" + name, detail: reason))
                }
            case .missingBlob(let suspected):
                guard entry(for: suspected.url)?.sha256 == suspected.sha256, !hasBlob(suspected) else { continue }
                let name = Self.entryName(for: suspected.url)
                if entriesFolder.removeItem(name) {
                    problems.append(
                        CacheProblem(kind: .missingBlob, path: "v1/entries/" + name, url: suspected.url, detail: "its blob is missing"))
                }
                removeThumbnails(of: suspected.sha256)
            case .damagedBlob(let sha256, let entries, let reason):
                let shard = try? blobsFolder.subdirectory(Self.shard(of: sha256))
                if let shard, let (digest, _) = Self.hash(sha256, in: shard), digest == sha256 { continue }
                let path = "v1/blobs/\(Self.shard(of: sha256))/\(sha256)"
                for suspected in entries where entry(for: suspected.url)?.sha256 == sha256 {
                    entriesFolder.removeItem(Self.entryName(for: suspected.url))
                    problems.append(CacheProblem(kind: .damagedBlob, path: path, url: suspected.url, detail: reason))
                }
                removeBlob(sha256)
            case .orphanedBlob(let shardName, let name):
                guard !referenced.contains(name), let shard = try? blobsFolder.subdirectory(shardName) else { continue }
                let size = shard.status(of: name)?.size ?? 0
                if shard.removeItem(name) {
                    report.orphanedBlobs += 1
                    report.orphanedBytes += size
                }
            case .orphanedThumbnail(let shardName, let name):
                if let body = Self.parseThumbnailName(name), Self.shard(of: body.sha256) == shardName, referenced.contains(body.sha256),
                    hasBlob(sha256: body.sha256)
                {
                    continue
                }
                guard let shard = try? thumbnailsFolder?.subdirectory(shardName) else { continue }
                if shard.removeItem(name) { report.orphanedThumbnails += 1 }
            case .notAFile:
                if let problem = repair(suspect) { problems.append(problem) }
            case .unreadableCounters:
                guard case .some(nil) = storedCounters() else { continue }
                if root.removeItem(Self.countersName) {
                    problems.append(
                        CacheProblem(kind: .unreadableCounters, path: "v1/" + Self.countersName, detail: "not valid; counting starts again")
                    )
                }
            }
        }
        return problems
    }

    private enum EntryFile {
        case entry(CacheEntry)
        case unreadable(String)
        case notAFile
        /// A regular file with other names: one planted to a file elsewhere, which a hit would touch.
        case hardLink
        /// Removed since the folder was listed (evicted or cleared by another process).
        case gone
    }

    private func readEntry(named name: String) -> EntryFile {
        guard let status = entriesFolder.status(of: name) else { return .gone }
        guard status.type == .regular else { return .notAFile }
        guard status.linkCount == 1 else { return .hardLink }
        let read: EntryFile? = SmallFileReader(folder: entriesFolder).read(name) { bytes, status in
            guard let entry = Self.decodeEntry(bytes, status) else { return .unreadable("not valid entry metadata") }
            // Lookups go by the URL's hash; an entry under another name could never be found, only listed.
            guard Self.entryName(for: entry.url) == name else { return .unreadable("file name does not match its URL") }
            return .entry(entry)
        }
        if let read { return read }
        return entriesFolder.status(of: name) == nil ? .gone : .unreadable("cannot be read")
    }

    /// "a symbolic link", "a FIFO"…: what stands where something else belongs.
    private static func describe(_ type: FileType) -> String {
        switch type {
        case .symbolicLink: "a symbolic link"
        case .fifo: "a FIFO"
        case .directory: "a folder"
        case .socket: "a socket"
        case .characterSpecial, .blockSpecial: "a device node"
        case .regular: "a file"
        default: "something"
        }
    }

    /// The file's SHA-256 and size, or nil when it cannot be read as a regular file.
    private static func hash(_ name: String, in folder: Directory) -> (String, Int64)? {
        guard let file = try? folder.openFile(name) else { return nil }
        defer { try? file.close() }
        guard let digest = try? FileDigest.sha256(of: file), let status = try? Stat(file) else { return nil }
        return (digest, status.size)
    }
}
