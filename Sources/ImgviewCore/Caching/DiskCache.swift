import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The on-disk cache: content-addressed blobs plus one metadata file per URL.
///
/// Layout under `directory/v1`: `entries/<sha256 of URL>.json`, `blobs/<ab>/<sha256 of body>`,
/// `tmp/<pid>-<uuid>.part` for downloads in progress, `counters.json` (see `CacheCounters`), and `lock`. Every change happens under an
/// exclusive `flock`, each file appears by an atomic rename, and the size limit is enforced before
/// the lock is released, so two processes, or a `kill -9` at any moment, leave it consistent: at
/// worst an unreferenced blob or an abandoned temporary file, which the next writer removes.
public final class DiskCache: Sendable {
    public let directory: URL
    /// The most bytes of blobs the cache keeps; least recently used entries go first.
    public let sizeLimit: Int64
    let now: @Sendable () -> Date
    private let lock: FileLock

    var root: URL { directory.appendingPathComponent("v1") }
    var entriesFolder: URL { root.appendingPathComponent("entries") }
    var blobsFolder: URL { root.appendingPathComponent("blobs") }
    var temporaryFolder: URL { root.appendingPathComponent("tmp") }
    var countersFile: URL { root.appendingPathComponent("counters.json") }

    /// The size limit unless one is given: 1 GiB.
    public static let defaultSizeLimit: Int64 = 1 << 30

    /// Opens (creating if needed) the cache in `directory`.
    public init(
        directory: URL, sizeLimit: Int64 = defaultSizeLimit, now: @escaping @Sendable () -> Date = Date.init
    ) throws(DiskCacheError) {
        self.directory = directory
        self.sizeLimit = sizeLimit
        self.now = now
        self.lock = FileLock(path: directory.appendingPathComponent("v1/lock").path)
        do {
            for folder in [entriesFolder, blobsFolder, temporaryFolder] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
        } catch {
            throw .unusable(directory.path, Self.whyUnusable(directory))
        }
        guard access(root.path, W_OK) == 0 else { throw .unusable(directory.path, "not writable") }
    }

    /// Words for why the cache's folders could not be made: Foundation's own say only "error 512".
    private static func whyUnusable(_ directory: URL) -> String {
        var path = directory.path
        // The nearest part of the path that exists is what stands in the way.
        while !path.isEmpty, path != "/" {
            var info = stat()
            if stat(path, &info) == 0 {
                if (info.st_mode & S_IFMT) != S_IFDIR { return "\(TerminalText.sanitized(path)) is not a folder" }
                return access(path, W_OK) == 0 ? "cannot create its folders" : "\(TerminalText.sanitized(path)) is not writable"
            }
            path = (path as NSString).deletingLastPathComponent
        }
        return "cannot create its folders"
    }

    // MARK: Reading

    /// The entry for `url`, or nil when there is none or its metadata is unreadable.
    public func entry(for url: URL) -> CacheEntry? {
        guard let data = try? Data(contentsOf: entryURL(for: url)) else { return nil }
        guard let entry = Self.decodeEntry(data), entry.url == url else { return nil }
        return entry
    }

    /// Where the body of `entry` is stored.
    public func blobURL(for entry: CacheEntry) -> URL {
        blobURL(sha256: entry.sha256)
    }

    /// Every readable entry, most recently used first.
    ///
    /// Cheap enough for ten thousand entries: files are read through one buffer per thread, on
    /// every core, and parsed by `CacheEntryParser` before `JSONDecoder` is tried.
    public func entries() -> [CacheEntry] {
        let folder = entriesFolder.path
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".json") && !$0.hasPrefix(".")
        }
        let parts = names.count < 500 ? 1 : max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))
        var found = [[CacheEntry]](repeating: [], count: parts)
        found.withUnsafeMutableBufferPointer { results in
            // Each iteration writes only its own slot.
            nonisolated(unsafe) let results = results
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                guard let reader = SmallFileReader(folder: folder) else { return }
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
    /// Read without the lock: the file is only ever replaced whole, by a rename.
    public func counters() -> CacheCounters {
        (storedCounters() ?? nil) ?? .zero
    }

    /// The counters file: nil when there is none, `.some(nil)` when it cannot be read as counters.
    func storedCounters() -> CacheCounters?? {
        guard let data = try? Data(contentsOf: countersFile) else { return nil }
        return .some(try? Self.decoder.decode(CacheCounters.self, from: data))
    }

    // MARK: Writing

    /// A new file for a download to write into; it becomes a blob through `store`.
    public func makeTemporaryFile() throws -> TemporaryFile {
        try TemporaryFile(in: temporaryFolder)
    }

    /// Makes the finished `file` the body of `entry`, then evicts until the cache is within its limit.
    ///
    /// A body larger than the whole limit is not stored (the returned value is nil); the file stays
    /// with the caller. `countingMiss` adds the miss that led to the download to the counters, in
    /// the same locked step, so a download costs no extra locking for its statistics.
    public func store(_ file: TemporaryFile, as entry: CacheEntry, countingMiss: Bool = false) throws -> CacheEntry? {
        guard entry.byteCount <= sizeLimit else { return nil }
        // The metadata is written and fsynced before the lock is taken, so concurrent downloads
        // wait for each other's renames, not for each other's disk flushes.
        let metadata = try AtomicFile.stage(Self.encoder.encode(entry), for: entryURL(for: entry.url))
        do {
            return try lock.withExclusiveLock {
                let blob = blobURL(for: entry)
                let shard = blob.deletingLastPathComponent()
                if mkdir(shard.path, 0o755) != 0, errno != EEXIST {
                    try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
                }
                // Same bytes, same name: an existing blob already holds them, so a rename over it is harmless.
                guard rename(file.url.path, blob.path) == 0 else {
                    throw FileSystemError(operation: "store", path: blob.path, errno: errno)
                }
                file.keep()
                try metadata.commit()
                let evicted = try enforceLimit(keeping: entry.sha256)
                addToCounters(CacheCounters(misses: countingMiss ? 1 : 0, evictions: Int64(evicted)))
                return entry
            }
        } catch {
            metadata.discard()
            throw error
        }
    }

    /// Renews a stale entry after a 304: the body stays, the freshness and validators are updated.
    /// Counts a revalidation.
    public func renew(_ entry: CacheEntry) throws {
        try lock.withExclusiveLock {
            try write(entry)
            addToCounters(CacheCounters(revalidations: 1))
        }
    }

    /// Records a use of `entry`, for least-recently-used eviction; best effort.
    public func touch(_ entry: CacheEntry) {
        touch(entry, counting: .zero)
    }

    /// Records that `entry` was served from disk: its last use, and a hit in the counters; best effort.
    public func recordHit(_ entry: CacheEntry) {
        var used = entry
        // Entries from before pixel sizes were recorded get theirs on first use (read before the lock).
        if used.dimensions == nil { used.dimensions = ImageDimensions.read(fileAt: blobURL(for: entry)) }
        touch(used, counting: CacheCounters(hits: 1))
    }

    /// Counts a request the cache could not answer and whose body was not stored; best effort.
    public func recordMiss() {
        try? lock.withExclusiveLock { addToCounters(CacheCounters(misses: 1)) }
    }

    private func touch(_ entry: CacheEntry, counting delta: CacheCounters) {
        var touched = entry
        touched.lastAccessedAt = now()
        try? lock.withExclusiveLock {
            addToCounters(delta)
            guard self.entry(for: entry.url)?.sha256 == entry.sha256 else { return }
            try write(touched)
        }
    }

    /// Removes the entry for `url` and its blob (unless another entry shares the blob).
    public func remove(_ url: URL) throws {
        try lock.withExclusiveLock {
            let gone = entry(for: url)
            unlink(entryURL(for: url).path)
            if let gone, !entries().contains(where: { $0.sha256 == gone.sha256 }) {
                unlink(blobURL(for: gone).path)
            }
        }
    }

    // MARK: Internals

    /// Runs `body` holding the cache's exclusive lock, as every change must.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        try lock.withExclusiveLock(body)
    }

    func write(_ entry: CacheEntry) throws {
        try AtomicFile.write(Self.encoder.encode(entry), to: entryURL(for: entry.url))
    }

    /// Adds `delta` to the counters file; runs under the lock, so no increment of another process is lost.
    ///
    /// Best effort and not fsynced: a statistic is not worth failing a download for, nor a disk flush.
    func addToCounters(_ delta: CacheCounters) {
        guard delta != .zero, let data = try? Self.encoder.encode(counters() + delta) else { return }
        try? AtomicFile.write(data, to: countersFile, sync: false)
    }

    /// Removes abandoned downloads and unreferenced blobs, then least recently used entries while over the limit.
    /// Runs under the lock; returns how many entries it evicted.
    private func enforceLimit(keeping sha256: String) throws -> Int {
        for path in abandonedDownloads() { unlink(path) }
        var sizes = blobSizes()
        var total = sizes.values.reduce(0, +)
        guard total > sizeLimit else { return 0 }
        var evicted = 0

        // Oldest first; entries sharing a blob leave together with it.
        var entries = entries().reversed() as [CacheEntry]
        let referenced = Set(entries.map(\.sha256))
        for (hash, size) in sizes where !referenced.contains(hash) {
            unlink(blobURL(sha256: hash).path)
            total -= size
            sizes[hash] = nil
        }
        while total > sizeLimit, let victim = entries.first(where: { $0.sha256 != sha256 }) {
            let sharing = entries.filter { $0.sha256 == victim.sha256 }
            for entry in sharing { unlink(entryURL(for: entry.url).path) }
            evicted += sharing.count
            entries.removeAll { $0.sha256 == victim.sha256 }
            unlink(blobURL(for: victim).path)
            total -= sizes.removeValue(forKey: victim.sha256) ?? 0
        }
        return evicted
    }

    /// Size of every blob, by hash, from the file system (cheaper than reading every entry).
    ///
    /// Runs under the lock after every store, so it stats names relative to each shard folder
    /// (`fstatat`): a `URL` per blob (`appendingPathComponent` stats the path itself) made it a
    /// sixth of the CPU time of `get --all` for 200 images.
    func blobSizes() -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        let root = blobsFolder.path
        for shard in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            let folder = root + "/" + shard
            let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                var info = stat()
                if fstatat(descriptor, name, &info, 0) == 0 { sizes[name] = Int64(info.st_size) }
            }
        }
        return sizes
    }

    func entryURL(for url: URL) -> URL {
        entriesFolder.appendingPathComponent(SHA256.hash(data: Data(url.absoluteString.utf8)).hexString + ".json")
    }

    func blobURL(sha256: String) -> URL {
        blobsFolder.appendingPathComponent(String(sha256.prefix(2))).appendingPathComponent(sha256)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// An entry from its metadata file's bytes: the fast parser, else `JSONDecoder` (see `CacheEntryParser`).
    static func decodeEntry(_ bytes: UnsafeBufferPointer<UInt8>) -> CacheEntry? {
        if let entry = CacheEntryParser.parse(bytes) { return entry }
        guard var entry = try? decoder.decode(CacheEntry.self, from: Data(buffer: bytes)) else { return nil }
        // Foundation also reads fractions of a second ("17:54:2.9Z"), which the cache never writes;
        // dropping them keeps an entry the same when it is written back (found by the fuzzer).
        for keyPath in [\CacheEntry.fetchedAt, \.lastAccessedAt, \.freshUntil] {
            entry[keyPath: keyPath] = Date(timeIntervalSince1970: entry[keyPath: keyPath].timeIntervalSince1970.rounded(.down))
        }
        return entry
    }

    static func decodeEntry(_ data: Data) -> CacheEntry? {
        data.withUnsafeBytes { decodeEntry($0.bindMemory(to: UInt8.self)) }
    }

    /// The bytes of `entry`'s metadata file, exactly as the cache writes them.
    @_spi(Fuzzing) public static func metadata(of entry: CacheEntry) throws -> Data {
        try encoder.encode(entry)
    }

    /// What each of the two metadata readers makes of `data`: the fast parser and `JSONDecoder`.
    ///
    /// They must never disagree about a file the fast parser accepts; the fuzzer checks that.
    @_spi(Fuzzing) public static func bothReadings(of data: Data) -> (fast: CacheEntry?, decoded: CacheEntry?) {
        let fast = data.withUnsafeBytes { CacheEntryParser.parse($0.bindMemory(to: UInt8.self)) }
        return (fast, try? decoder.decode(CacheEntry.self, from: data))
    }

    /// An entry read from metadata bytes the way the cache reads its files; nil when they hold none.
    @_spi(Fuzzing) public static func entry(fromMetadata data: Data) -> CacheEntry? {
        decodeEntry(data)
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

/// Why the disk cache cannot be used.
public enum DiskCacheError: Error, Equatable, Sendable {
    case unusable(String, String)
}

extension DiskCacheError: UserFacingError {
    public var message: String {
        switch self {
        case .unusable(let path, let reason): "cache \(TerminalText.sanitized(path)): cannot be used: \(TerminalText.sanitized(reason))"
        }
    }

    public var exitStatus: ExitStatus { .cache }
}
