import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// `cache verify`: rehash every blob, find metadata and files that do not belong, remove them.
//
// Hashing a large cache takes seconds, too long to keep downloads waiting, so the scan runs
// without the lock; everything it suspects is checked again under the lock before it is
// removed, since another process may have repaired it (a download of the same bytes renames
// a good blob over a damaged one) or referenced it (a blob renamed into place a moment before
// its entry) in the meantime.
extension DiskCache {
    /// Checks every entry, blob and temporary file; removes what is damaged or orphaned.
    public func verify() throws -> VerifyReport {
        var report = VerifyReport()
        let suspects = scan(into: &report)
        guard !suspects.isEmpty else { return report }
        report.problems = try withLock { confirm(suspects) }
        return report
    }

    /// Something the scan found wrong, to be confirmed under the lock.
    private enum Suspect {
        case unreadableEntry(name: String, reason: String)
        case missingBlob(CacheEntry)
        case damagedBlob(sha256: String, entries: [CacheEntry], reason: String)
        case orphanedBlob(path: String, name: String)
        case abandonedFile(path: String)
        case unreadableCounters
    }

    private func scan(into report: inout VerifyReport) -> [Suspect] {
        var suspects: [Suspect] = []
        var byHash: [String: [CacheEntry]] = [:]
        for name in Self.names(in: entriesFolder) where name.hasSuffix(".json") && !name.hasPrefix(".") {
            switch readEntry(named: name) {
            case .gone: continue
            case .unreadable(let reason): suspects.append(.unreadableEntry(name: name, reason: reason))
            case .entry(let entry):
                report.entries += 1
                byHash[entry.sha256, default: []].append(entry)
            }
        }

        var present: Set<String> = []
        for shard in Self.names(in: blobsFolder) {
            let folder = blobsFolder.appendingPathComponent(shard)
            guard Self.isDirectory(folder) else {
                suspects.append(.orphanedBlob(path: folder.path, name: shard))
                continue
            }
            for name in Self.names(in: folder) {
                let path = folder.appendingPathComponent(name).path
                guard let entries = byHash[name], shard == name.prefix(2) else {
                    suspects.append(.orphanedBlob(path: path, name: name))
                    continue
                }
                present.insert(name)
                report.blobs += 1
                switch Self.hash(path) {
                case .none:
                    // Evicted by another process since the listing: not damage.
                    if FileManager.default.fileExists(atPath: path) {
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
        for (hash, entries) in byHash where !present.contains(hash) {
            suspects += entries.map(Suspect.missingBlob)
        }
        suspects += abandonedFiles().map { Suspect.abandonedFile(path: $0) }
        if case .some(nil) = storedCounters() { suspects.append(.unreadableCounters) }
        return suspects
    }

    /// Removes each suspect that is still wrong; runs under the lock.
    private func confirm(_ suspects: [Suspect]) -> [CacheProblem] {
        var problems: [CacheProblem] = []
        // Read afresh: under the lock this is every entry there is, so a blob none of them names is an orphan.
        let referenced = Set(entries().map(\.sha256))
        for suspect in suspects {
            switch suspect {
            case .unreadableEntry(let name, let reason):
                guard case .unreadable = readEntry(named: name) else { continue }
                let path = entriesFolder.appendingPathComponent(name).path
                if unlink(path) == 0 { problems.append(CacheProblem(kind: .unreadableEntry, path: relative(path), detail: reason)) }
            case .missingBlob(let suspected):
                guard entry(for: suspected.url)?.sha256 == suspected.sha256,
                    !FileManager.default.fileExists(atPath: blobURL(for: suspected).path)
                else { continue }
                let path = entryURL(for: suspected.url).path
                if unlink(path) == 0 {
                    problems.append(
                        CacheProblem(kind: .missingBlob, path: relative(path), url: suspected.url, detail: "its blob is missing"))
                }
            case .damagedBlob(let sha256, let entries, let reason):
                let blob = blobURL(sha256: sha256).path
                if let (digest, _) = Self.hash(blob), digest == sha256 { continue }
                for suspected in entries where entry(for: suspected.url)?.sha256 == sha256 {
                    unlink(entryURL(for: suspected.url).path)
                    problems.append(CacheProblem(kind: .damagedBlob, path: relative(blob), url: suspected.url, detail: reason))
                }
                unlink(blob)
            case .orphanedBlob(let path, let name):
                guard !referenced.contains(name) else { continue }
                if unlink(path) == 0 {
                    problems.append(CacheProblem(kind: .orphanedBlob, path: relative(path), detail: "no entry references it"))
                }
            case .abandonedFile(let path):
                if unlink(path) == 0 {
                    problems.append(CacheProblem(kind: .abandonedFile, path: relative(path), detail: "left by a process that is gone"))
                }
            case .unreadableCounters:
                guard case .some(nil) = storedCounters() else { continue }
                if unlink(countersFile.path) == 0 {
                    problems.append(
                        CacheProblem(
                            kind: .unreadableCounters, path: relative(countersFile.path), detail: "not valid; counting starts again"))
                }
            }
        }
        return problems
    }

    private enum EntryFile {
        case entry(CacheEntry)
        case unreadable(String)
        /// Removed since the folder was listed (evicted or cleared by another process).
        case gone
    }

    private func readEntry(named name: String) -> EntryFile {
        let file = entriesFolder.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: file) else {
            return FileManager.default.fileExists(atPath: file.path) ? .unreadable("cannot be read") : .gone
        }
        guard let entry = Self.decodeEntry(data) else { return .unreadable("not valid entry metadata") }
        // Lookups go by the URL's hash; an entry under another name could never be found, only listed.
        guard entryURL(for: entry.url).lastPathComponent == name else { return .unreadable("file name does not match its URL") }
        return .entry(entry)
    }

    private func relative(_ path: String) -> String {
        let prefix = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    private static func names(in folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The file's SHA-256 and size, or nil when it cannot be read.
    private static func hash(_ path: String) -> (String, Int64)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                size += Int64(chunk.count)
            }
        } catch {
            return nil
        }
        return (hasher.finalize().hexString, size)
    }
}
