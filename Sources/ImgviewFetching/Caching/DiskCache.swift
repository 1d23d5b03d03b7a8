internal import Crypto
import Dispatch
import ImgviewImaging
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

/// The on-disk cache: content-addressed blobs plus one metadata file per URL.
///
/// Layout under `directory/v1`: `entries/<sha256 of URL>.json`, `blobs/<ab>/<sha256 of body>`,
/// `thumbnails/<ab>/<sha256 of body>-<pixels>.png` (a grid's thumbnails of a body, which go with
/// its blob; see `DiskCache+Thumbnails`), `tmp/<pid>-<uuid>.part` for downloads in progress and
/// blobs being read, `counters.json`, `hits` and `misses` (see `CacheCounters`), `size` (the bytes held,
/// see `CacheSizeLedger`), and `lock`. Every change happens under an exclusive `flock`, each file
/// appears by an atomic rename, and the size limit is enforced before the lock is released, so two
/// processes, or a `kill -9` at any moment, leave it consistent: at worst an unreferenced blob or an
/// abandoned temporary file, which the next writer removes.
///
/// Every file is reached through the cache's own open folders (`Directory`): no link inside the
/// cache is followed, nothing but a regular file is opened where a file belongs, and a link or
/// file standing where one of the cache's folders belongs is replaced by a real folder.
/// A cache hit writes nothing that needs a flush or the exclusive lock: the entry file's
/// modification time is its last use, and hits are counted by appending a byte (see `recordHit`).
public final class DiskCache: Sendable {
    public let directory: URL
    /// The most bytes of blobs the cache keeps; least recently used entries go first.
    public let sizeLimit: Int64
    /// Opened only to read (`cache ls`, `cache stats`): nothing is created, locked or written.
    public let isReadOnly: Bool
    let now: @Sendable () -> Date
    let root: Directory
    let entriesFolder: Directory
    let blobsFolder: Directory
    let temporaryFolder: Directory
    /// Absent only in a cache opened read only that has none yet.
    let thumbnailsFolder: Directory?
    private let lock: FileLock

    static let countersName = "counters.json"
    static let hitsName = "hits"
    static let missesName = "misses"
    /// Hits and misses appended (one byte each) before a writer folds them into the counters file.
    static let pendingFoldThreshold: Int64 = 4096

    /// The size limit unless one is given: 1 GiB.
    public static let defaultSizeLimit: Int64 = 1 << 30
    /// The largest body kept by default (`--cache-max-entry`): Firefox keeps none over 50 MB.
    public static let defaultMaxEntry: Int64 = 50 << 20

    /// The largest body a cache of `sizeLimit` keeps when asked for `wanted`: never more than an
    /// eighth of the cache (as Chromium), so one body cannot evict most of it.
    public static func maxEntry(_ wanted: Int64, sizeLimit: Int64) -> Int64 {
        min(wanted, max(sizeLimit / 8, 1))
    }

    /// Opens (creating if needed, unless `readOnly`) the cache in `directory`.
    ///
    /// - Parameter makingFolder: whether `directory` itself (and the folders above it) is made when
    ///   missing; false for a folder that must already be there, such as a throwaway one that a
    ///   request to end may remove at any moment, and that must then not be made again.
    public init(
        directory: URL, sizeLimit: Int64 = defaultSizeLimit, readOnly: Bool = false, makingFolder: Bool = true,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws(DiskCacheError) {
        self.directory = directory
        self.sizeLimit = sizeLimit
        self.isReadOnly = readOnly
        self.now = now
        do {
            if readOnly {
                root = try Directory.open(directory.path).subdirectory("v1")
                entriesFolder = try root.subdirectory("entries")
                blobsFolder = try root.subdirectory("blobs")
                temporaryFolder = try root.subdirectory("tmp")
                thumbnailsFolder = try? root.subdirectory("thumbnails")
            } else {
                if makingFolder { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
                root = try Directory.open(directory.path).makeSubdirectory("v1")
                entriesFolder = try root.makeSubdirectory("entries")
                blobsFolder = try root.makeSubdirectory("blobs")
                temporaryFolder = try root.makeSubdirectory("tmp")
                thumbnailsFolder = try root.makeSubdirectory("thumbnails")
            }
        } catch {
            throw .unusable(directory.path, Self.whyUnusable(directory, readOnly: readOnly))
        }
        lock = FileLock(name: "lock", in: root)
        guard readOnly || access(root.path, W_OK) == 0 else { throw .unusable(directory.path, "not writable") }
    }

    /// The cache in `directory` for a command that fetches: read and written when it may be,
    /// else read only, so that hits are served from a cache the user may not write (one that is
    /// shared, or on a read-only file system); nil when it may not be written and holds nothing.
    ///
    /// Read only, nothing is stored, counted or touched: downloads go to the system's temporary
    /// folder and are not kept. Only a folder that exists and may not be written is read only; any
    /// other reason the cache cannot be used (a file in its place) is an error, as before.
    public static func forFetching(
        directory: URL, sizeLimit: Int64 = defaultSizeLimit, now: @escaping @Sendable () -> Date = Date.init
    ) throws(DiskCacheError) -> DiskCache? {
        do {
            return try DiskCache(directory: directory, sizeLimit: sizeLimit, now: now)
        } catch {
            guard Self.isNotWritable(directory) else { throw error }
            return try? DiskCache(directory: directory, sizeLimit: sizeLimit, readOnly: true, now: now)
        }
    }

    /// Whether the nearest existing part of `directory`'s path is a folder this process may not write.
    private static func isNotWritable(_ directory: URL) -> Bool {
        var path = directory.path
        while !path.isEmpty, path != "/" {
            var info = stat()
            if stat(path, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { return false }
                // The folder itself when it exists, else the parent it would be made in.
                if path == directory.path, let v1 = try? Directory.open(path).subdirectory("v1") {
                    return access(v1.path, W_OK) != 0
                }
                return access(path, W_OK) != 0
            }
            path = PathText.folder(of: path)
        }
        return false
    }

    /// Words for why the cache's folders could not be made: Foundation's own say only "error 512".
    private static func whyUnusable(_ directory: URL, readOnly: Bool) -> String {
        var path = directory.path
        // The nearest part of the path that exists is what stands in the way.
        while !path.isEmpty, path != "/" {
            var info = stat()
            if stat(path, &info) == 0 {
                if (info.st_mode & S_IFMT) != S_IFDIR { return "\(TerminalText.sanitized(path)) is not a folder" }
                if readOnly { return "its folders cannot be read" }
                return access(path, W_OK) == 0 ? "cannot create its folders" : "\(TerminalText.sanitized(path)) is not writable"
            }
            path = PathText.folder(of: path)
        }
        return "cannot create its folders"
    }

    // MARK: Reading

    /// The entry for `url`, or nil when there is none or its metadata is unreadable.
    public func entry(for url: URL) -> CacheEntry? {
        guard let entry = SmallFileReader(folder: entriesFolder).read(Self.entryName(for: url), Self.decodeEntry), entry.url == url
        else { return nil }
        return entry
    }

    /// Where the body of `entry` is stored (for messages and tests: the cache reads it through its folders).
    public func blobURL(for entry: CacheEntry) -> URL {
        blobURL(sha256: entry.sha256)
    }

    /// The body of `entry`, checked against its SHA-256.
    ///
    /// Throws `DiskCacheError.damagedBlob` when the bytes changed, `FileSystemError` when there is
    /// no regular file to read (evicted or cleared meanwhile): the caller fetches again.
    public func readBlob(of entry: CacheEntry) throws -> Data {
        let file: FileDescriptor
        do {
            file = try blobsFolder.subdirectory(Self.shard(of: entry.sha256)).openFile(entry.sha256)
        } catch {
            throw FileSystemError(operation: "read", path: blobURL(for: entry).path, errno: error.rawValue)
        }
        defer { try? file.close() }
        var data = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do {
                count = try file.read(into: buffer)
            } catch {
                throw FileSystemError(operation: "read", path: blobURL(for: entry).path, errno: Errno.code(of: error))
            }
            if count == 0 { break }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        guard SHA256.hash(data: data).hexString == entry.sha256 else { throw DiskCacheError.damagedBlob(blobURL(for: entry).path) }
        return data
    }

    /// The body of `entry` under a private name in `tmp/`, checked against its SHA-256: it stays
    /// readable while the caller holds it, whatever `clear`, `prune` or eviction do meanwhile.
    ///
    /// In a cache opened read only no name can be made there: the body is copied into a
    /// temporary file of the system's instead.
    public func openBlob(of entry: CacheEntry) throws -> TemporaryFile {
        let file: TemporaryFile
        do {
            let shard = try blobsFolder.subdirectory(Self.shard(of: entry.sha256))
            file =
                isReadOnly
                ? try Self.copy(entry.sha256, in: shard) : try TemporaryFile(linking: entry.sha256, in: shard, into: temporaryFolder)
        } catch {
            throw FileSystemError(operation: "read", path: blobURL(for: entry).path, errno: error.rawValue)
        }
        let digest: String
        do {
            digest = try FileDigest.sha256(of: file.fileDescriptor)
        } catch {
            throw FileSystemError(operation: "read", path: blobURL(for: entry).path, errno: Errno.code(of: error))
        }
        guard digest == entry.sha256 else { throw DiskCacheError.damagedBlob(blobURL(for: entry).path) }
        return file
    }

    /// A copy of the regular file `name` of `folder` in the system's temporary folder.
    private static func copy(_ name: String, in folder: Directory) throws(Errno) -> TemporaryFile {
        let source = try folder.openFile(name)
        defer { try? source.close() }
        let copy: TemporaryFile
        do {
            copy = try TemporaryFile(in: FileManager.default.temporaryDirectory)
        } catch {
            throw Errno(rawValue: (error as? FileSystemError)?.code ?? EIO)
        }
        do {
            if try !LinuxFileCalls.copyInKernel(source, into: copy.fileDescriptor) {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate() }
                while case let count = try source.read(into: buffer), count > 0 {
                    _ = try copy.fileDescriptor.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                }
            }
            _ = try copy.fileDescriptor.seek(offset: 0, from: .start)
        } catch {
            throw Errno(rawValue: Errno.code(of: error))
        }
        return copy
    }

    /// Whether the blob of `entry` is there, as a regular file.
    func hasBlob(_ entry: CacheEntry) -> Bool {
        hasBlob(sha256: entry.sha256)
    }

    /// Whether the blob `sha256` is there, as a regular file.
    func hasBlob(sha256: String) -> Bool {
        (try? blobsFolder.subdirectory(Self.shard(of: sha256)))?.status(of: sha256)?.type == .regular
    }

    /// Every readable entry, most recently used first.
    ///
    /// Cheap enough for ten thousand entries: files are read through one buffer per thread, on
    /// every core, and parsed by `CacheEntryParser` before `JSONDecoder` is tried.
    public func entries() -> [CacheEntry] {
        let names = entriesFolder.names().filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        let parts = names.count < 500 ? 1 : max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))
        var found = [[CacheEntry]](repeating: [], count: parts)
        let folder = entriesFolder
        found.withUnsafeMutableBufferPointer { results in
            // Each iteration writes only its own slot.
            nonisolated(unsafe) let results = results
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let reader = SmallFileReader(folder: folder)
                var entries: [CacheEntry] = []
                for index in stride(from: part, to: names.count, by: parts) {
                    if let entry = reader.read(names[index], Self.decodeEntry) { entries.append(entry) }
                }
                results[part] = entries
            }
        }
        let entries = found.flatMap { $0 }
        // Ties (entries used in the same second) in URL order, so listings are stable.
        return entries.sorted { a, b in
            a.lastAccessedAt != b.lastAccessedAt ? a.lastAccessedAt > b.lastAccessedAt : a.url.absoluteString < b.url.absoluteString
        }
    }

    /// Bytes used by blobs.
    public var totalSize: Int64 {
        blobSizes().values.reduce(0, +)
    }

    /// The counters of every process so far; zero when none were recorded or the file is unreadable.
    ///
    /// Read without the lock: the file is only ever replaced whole, by a rename; hits not yet
    /// folded into it are the bytes of the `hits` file.
    public func counters() -> CacheCounters {
        var counters = (storedCounters() ?? nil) ?? .zero
        counters.hits &+= pendingCount(Self.hitsName)
        counters.misses &+= pendingCount(Self.missesName)
        return counters
    }

    /// The counters file: nil when there is none, `.some(nil)` when it cannot be read as counters.
    func storedCounters() -> CacheCounters?? {
        guard root.status(of: Self.countersName) != nil else { return nil }
        let counters = SmallFileReader(folder: root).read(Self.countersName) { bytes, _ in
            try? Self.decoder.decode(CacheCounters.self, from: Data(buffer: bytes))
        }
        return .some(counters)
    }

    /// Hits (`hits`) or misses (`misses`) recorded since the counters file was last written: one
    /// byte each (a hard link planted there is not the cache's file, and counts nothing).
    private func pendingCount(_ name: String) -> Int64 {
        guard let status = root.status(of: name), status.type == .regular, status.linkCount == 1 else { return 0 }
        return status.size
    }

    /// Appends one byte to the pending file `name`; false when it could not.
    private func appendPending(_ name: String) -> Bool {
        guard let file = try? root.openOwnFile(name, flags: O_WRONLY | O_APPEND | O_CREAT) else { return false }
        defer { try? file.close() }
        return (try? file.writeAll([UInt8(ascii: name == Self.hitsName ? "h" : "m")])) != nil
    }

    // MARK: Writing

    /// A new file for a download to write into; it becomes a blob through `store` (in the
    /// system's temporary folder when the cache is read only, where it stays a download).
    public func makeTemporaryFile() throws -> TemporaryFile {
        if isReadOnly { return try TemporaryFile(in: FileManager.default.temporaryDirectory) }
        return try TemporaryFile(in: temporaryFolder)
    }

    /// Makes the finished `file` the body of `entry`, then evicts until the cache is within its limit.
    ///
    /// The blob is a second name of `file`, which stays where it is: the caller reads the body
    /// through it, however another process clears or prunes the cache meanwhile. A body larger
    /// than the whole limit is not stored (the returned value is nil). `countingMiss` adds the
    /// miss that led to the download to the counters, in the same locked step, so a download
    /// costs no extra locking for its statistics.
    public func store(_ file: TemporaryFile, as entry: CacheEntry, countingMiss: Bool = false) throws -> CacheEntry? {
        guard entry.byteCount <= sizeLimit, !isReadOnly else { return nil }
        // The metadata is written and fsynced before the lock is taken, so concurrent downloads
        // wait for each other's renames, not for each other's disk flushes.
        let metadata = try AtomicFile.stage(
            Self.encoder.encode(entry), as: Self.entryName(for: entry.url), in: entriesFolder, modified: entry.lastAccessedAt)
        do {
            return try withSizeLedger { total in
                let blob = blobURL(for: entry).path
                do {
                    let shard = try blobsFolder.makeSubdirectory(Self.shard(of: entry.sha256))
                    // Another URL's entry may hold these bytes already: only what the name newly holds counts.
                    let before = shard.status(of: entry.sha256).flatMap { $0.type == .regular ? $0.size : nil } ?? 0
                    let staging = ".\(entry.sha256).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
                    try file.folder.link(file.name, as: staging, in: shard)
                    // Same bytes, same name: an existing blob already holds them, so a rename over it is harmless.
                    do {
                        try shard.rename(staging, to: entry.sha256, in: shard)
                    } catch {
                        shard.removeItem(staging)
                        throw error
                    }
                    total += (shard.status(of: entry.sha256)?.size ?? entry.byteCount) - before
                } catch {
                    throw FileSystemError(operation: "store", path: blob, errno: Errno.code(of: error))
                }
                let replaced = self.entry(for: entry.url)
                try metadata.commit()
                // The image changed: its old bytes go, unless another URL's entry shares them.
                if let replaced, replaced.sha256 != entry.sha256, !entries().contains(where: { $0.sha256 == replaced.sha256 }) {
                    total -= removeBlobFreeing(replaced.sha256).freed
                }
                let evicted = try enforceLimit(keeping: entry.sha256, total: &total)
                addToCounters(CacheCounters(misses: countingMiss ? 1 : 0, evictions: Int64(evicted)))
                return entry
            }
        } catch {
            metadata.discard()
            throw error
        }
    }

    /// Renews a stale entry after a 304: the body stays, the freshness and validators are updated.
    /// Counts a revalidation. A cache opened read only renews nothing.
    public func renew(_ entry: CacheEntry) throws {
        guard !isReadOnly else { return }
        try lock.withExclusiveLock {
            try write(entry)
            addToCounters(CacheCounters(revalidations: 1))
        }
    }

    /// Records a use of `entry`, for least-recently-used eviction; best effort.
    ///
    /// The use is the entry file's modification time, set in place: no lock, no rewrite, no flush.
    public func touch(_ entry: CacheEntry) {
        guard !isReadOnly else { return }
        try? LinuxFileCalls.setModificationTime(of: Self.entryName(for: entry.url), in: entriesFolder, to: now())
    }

    /// Records that `entry` was served from disk: its last use, and a hit in the counters; best effort.
    ///
    /// Nothing here waits for the disk or for a writer's exclusive lock to be free for long: the
    /// hit is one byte appended to `hits` under the shared lock (which only keeps it apart from
    /// the moment a writer folds the hits into the counters file). `probe`, read by the caller
    /// from the body it verified, fills in an entry stored without one.
    public func recordHit(_ entry: CacheEntry, probe: ImageProbe? = nil) {
        guard !isReadOnly else { return }
        touch(entry)
        try? lock.withSharedLock { _ = appendPending(Self.hitsName) }
        // Entries from before the probe was kept get theirs on first use. An image whose size
        // cannot be read keeps what it has, so its hits stay free of the exclusive lock.
        guard entry.probe == nil, let probe, probe.storedSize != nil, !isReadOnly else { return }
        var upgraded = entry
        upgraded.probe = probe
        upgraded.lastAccessedAt = now()
        try? lock.withExclusiveLock {
            guard self.entry(for: entry.url)?.sha256 == entry.sha256 else { return }
            try write(upgraded)
        }
    }

    /// Counts a request the cache could not answer and whose body was not stored; best effort.
    public func recordMiss() {
        guard !isReadOnly else { return }
        try? lock.withExclusiveLock { addToCounters(CacheCounters(misses: 1)) }
    }

    /// Removes the entry for `url` and its blob (unless another entry shares the blob).
    public func remove(_ url: URL) throws {
        try withLock {
            let gone = entry(for: url)
            entriesFolder.removeItem(Self.entryName(for: url))
            if let gone, !entries().contains(where: { $0.sha256 == gone.sha256 }) {
                removeBlob(gone.sha256)
            }
        }
    }

    // MARK: Internals

    /// Runs `body` holding the cache's exclusive lock, as every change must; the size ledger is
    /// measured again after it (`clear`, `rm`, `prune` and `verify` remove whatever they find).
    func withLock<T>(_ body: () throws -> T) throws -> T {
        try lock.withExclusiveLock {
            let ledger = CacheSizeLedger(in: root)
            ledger?.markChanging()
            let result = try body()
            ledger?.record(measuredSize())
            return result
        }
    }

    /// Runs `change` holding the exclusive lock, with the bytes the cache holds against its limit
    /// as its size ledger has them (measured when the ledger cannot be trusted); `change` keeps the
    /// figure up to date as it adds and removes files, and it is recorded after. When `change`
    /// throws, the ledger stays marked as being changed, and the next writer measures.
    func withSizeLedger<T>(_ change: (inout Int64) throws -> T) throws -> T {
        try lock.withExclusiveLock {
            let ledger = CacheSizeLedger(in: root)
            var total = ledger?.total ?? measuredSize()
            ledger?.markChanging()
            let result = try change(&total)
            ledger?.record(total)
            return result
        }
    }

    /// The bytes held against the limit, measured: every blob, and every thumbnail of a body.
    func measuredSize() -> Int64 {
        blobSizes().values.reduce(0, +) + thumbnailBytesByBody().values.reduce(0, +)
    }

    /// What the size ledger says the cache holds; nil when it is missing or not to be trusted.
    func ledgerSize() -> Int64? {
        guard !isReadOnly else { return nil }
        return (try? lock.withSharedLock { CacheSizeLedger(in: root, readOnly: true)?.total }) ?? nil
    }

    /// Runs `body` holding the cache's shared lock: no change that needs the exclusive one (a
    /// blob's removal) happens meanwhile.
    func withSharedLock<T>(_ body: () throws -> T) throws -> T {
        try lock.withSharedLock(body)
    }

    func write(_ entry: CacheEntry) throws {
        try AtomicFile.write(
            Self.encoder.encode(entry), as: Self.entryName(for: entry.url), in: entriesFolder, modified: entry.lastAccessedAt)
    }

    /// Adds `delta` and the hits appended so far to the counters file; runs under the lock, so no
    /// increment of another process is lost.
    ///
    /// Best effort and not fsynced: a statistic is not worth failing a download for, nor a disk flush.
    /// A miss alone is one byte appended to `misses`, as a hit is to `hits`: the counters file,
    /// a new file and a rename, is rewritten only when there is more to add, or much pending.
    func addToCounters(_ delta: CacheCounters) {
        let pendingHits = pendingCount(Self.hitsName)
        let pendingMisses = pendingCount(Self.missesName)
        if delta == CacheCounters(misses: 1), pendingHits + pendingMisses < Self.pendingFoldThreshold, appendPending(Self.missesName) {
            return
        }
        guard delta != .zero || pendingHits > 0 || pendingMisses > 0, let data = try? Self.encoder.encode(counters() + delta) else {
            return
        }
        guard (try? AtomicFile.write(data, as: Self.countersName, in: root, sync: false)) != nil else { return }
        for (name, pending) in [(Self.hitsName, pendingHits), (Self.missesName, pendingMisses)] where pending > 0 {
            // Under the exclusive lock no hit or miss is being appended: what was counted goes.
            guard let file = try? root.openRegular(name, flags: O_WRONLY, soleName: true) else { continue }
            _ = try? file.resize(to: 0)
            try? file.close()
        }
    }

    /// Removes the blob `sha256` (a file, or whatever stands in its place) and its thumbnails;
    /// true when the blob went.
    @discardableResult
    func removeBlob(_ sha256: String) -> Bool {
        removeBlobFreeing(sha256).removed
    }

    /// Removes the blob `sha256` and its thumbnails, as `removeBlob`; with the bytes that freed.
    func removeBlobFreeing(_ sha256: String) -> (removed: Bool, freed: Int64) {
        var freed = removeThumbnails(of: sha256)
        guard let shard = try? blobsFolder.subdirectory(Self.shard(of: sha256)) else { return (false, freed) }
        let status = shard.status(of: sha256)
        guard shard.removeItem(sha256) else { return (false, freed) }
        if let status, status.type == .regular { freed += status.size }
        return (true, freed)
    }

    /// Removes abandoned downloads; then, when `total` (the ledger's figure) is over the limit,
    /// unreferenced blobs and least recently used entries until what is there is within it.
    /// Runs under the lock; updates `total` and returns how many entries it evicted.
    ///
    /// Only over the limit is every blob measured, and eviction goes by what is there: a ledger
    /// that counted more than there is (something removed files behind its back) is set right.
    private func enforceLimit(keeping sha256: String, total: inout Int64) throws -> Int {
        for name in abandonedDownloads() { temporaryFolder.removeItem(name) }
        guard total > sizeLimit else { return 0 }
        var sizes = blobSizes()
        // A body's thumbnails count with it, and leave with it.
        var thumbnailBytes = thumbnailBytesByBody()
        total = sizes.values.reduce(0, +) + thumbnailBytes.values.reduce(0, +)
        guard total > sizeLimit else { return 0 }
        var evicted = 0

        // Oldest first; entries sharing a blob leave together with it.
        var entries = entries().reversed() as [CacheEntry]
        let referenced = Set(entries.map(\.sha256))
        for (hash, size) in sizes where !referenced.contains(hash) {
            removeBlob(hash)
            total -= size + (thumbnailBytes.removeValue(forKey: hash) ?? 0)
            sizes[hash] = nil
        }
        while total > sizeLimit, let victim = entries.first(where: { $0.sha256 != sha256 }) {
            let sharing = entries.filter { $0.sha256 == victim.sha256 }
            for entry in sharing { entriesFolder.removeItem(Self.entryName(for: entry.url)) }
            evicted += sharing.count
            entries.removeAll { $0.sha256 == victim.sha256 }
            removeBlob(victim.sha256)
            total -= (sizes.removeValue(forKey: victim.sha256) ?? 0) + (thumbnailBytes.removeValue(forKey: victim.sha256) ?? 0)
        }
        return evicted
    }

    /// Evicts, as a store does, until `total` is within the limit; for a thumbnail just kept.
    func enforceLimitAfterThumbnail(of sha256: String, total: inout Int64) throws {
        let evicted = try enforceLimit(keeping: sha256, total: &total)
        if evicted > 0 { addToCounters(CacheCounters(evictions: Int64(evicted))) }
    }

    /// Size of every blob that is a regular file in a real shard folder, by hash.
    ///
    /// Runs under the lock when the size ledger cannot be trusted or says the cache is over its
    /// limit, so it stats names relative to each shard folder (`fstatat`, never following a link):
    /// a `URL` per blob (`appendingPathComponent` stats the path itself) made it a sixth of the CPU
    /// time of `get --all` for 200 images.
    func blobSizes() -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for shardName in blobsFolder.names() {
            guard let shard = try? blobsFolder.subdirectory(shardName) else { continue }
            for name in shard.names() where !name.hasPrefix(".") {
                if let status = shard.status(of: name), status.type == .regular { sizes[name] = status.size }
            }
        }
        return sizes
    }

    /// Where the metadata of `url` is stored (for messages and tests).
    func entryURL(for url: URL) -> URL {
        directory.appendingPathComponent("v1/entries").appendingPathComponent(Self.entryName(for: url))
    }

    static func entryName(for url: URL) -> String {
        SHA256.hash(data: Data(url.absoluteString.utf8)).hexString + ".json"
    }

    static func shard(of sha256: String) -> String {
        String(sha256.prefix(2))
    }

    func blobURL(sha256: String) -> URL {
        directory.appendingPathComponent("v1/blobs").appendingPathComponent(Self.shard(of: sha256)).appendingPathComponent(sha256)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = ISOTimestamp.encodingStrategy
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// An entry from its metadata file's bytes: the fast parser, else `JSONDecoder` (see `CacheEntryParser`).
    static func decodeEntry(_ bytes: UnsafeBufferPointer<UInt8>) -> CacheEntry? {
        if let entry = CacheEntryParser.parse(bytes) { return entry }
        return try? decoder.decode(CacheEntry.self, from: Data(buffer: bytes))
    }

    /// An entry from its metadata file: its bytes, and its modification time as the last use.
    static func decodeEntry(_ bytes: UnsafeBufferPointer<UInt8>, _ status: Stat) -> CacheEntry? {
        guard var entry = decodeEntry(bytes) else { return nil }
        entry.lastAccessedAt = Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))
        return entry
    }

    static func decodeEntry(_ data: Data) -> CacheEntry? {
        data.withUnsafeBytes { decodeEntry($0.bindMemory(to: UInt8.self)) }
    }

    /// The bytes of `entry`'s metadata file, exactly as the cache writes them.
    package static func metadata(of entry: CacheEntry) throws -> Data {
        try encoder.encode(entry)
    }

    /// What each of the two metadata readers makes of `data`: the fast parser and `JSONDecoder`.
    ///
    /// They must never disagree about a file the fast parser accepts; the fuzzer checks that.
    package static func bothReadings(of data: Data) -> (fast: CacheEntry?, decoded: CacheEntry?) {
        let fast = data.withUnsafeBytes { CacheEntryParser.parse($0.bindMemory(to: UInt8.self)) }
        return (fast, try? decoder.decode(CacheEntry.self, from: data))
    }

    /// An entry read from metadata bytes the way the cache reads its files; nil when they hold none.
    package static func entry(fromMetadata data: Data) -> CacheEntry? {
        decodeEntry(data)
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = ISOTimestamp.decodingStrategy
        return decoder
    }()
}

/// Why the disk cache cannot be used.
public enum DiskCacheError: Error, Equatable, Sendable {
    case unusable(String, String)
    /// A blob whose bytes no longer hash to its name.
    case damagedBlob(String)
}

extension DiskCacheError: UserFacingError {
    public var message: String {
        switch self {
        case .unusable(let path, let reason): "cache \(TerminalText.sanitized(path)): cannot be used: \(TerminalText.sanitized(reason))"
        case .damagedBlob(let path): "cache blob \(TerminalText.sanitized(path)): content does not match its SHA-256"
        }
    }

    public var exitStatus: ExitStatus { .cache }
}
