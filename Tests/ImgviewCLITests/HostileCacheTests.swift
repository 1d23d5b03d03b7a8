import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The cache under attack or abuse: links planted in it, FIFOs and folders where files belong,
/// processes racing it, a cache the user may not write, and what a cache hit may cost.
@Suite("The cache under hostile conditions")
struct HostileCacheTests {
    static let image: Data = {
        try! Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg"))
    }()

    struct Setup {
        let server: LoopbackServer
        let folder: URL
        var cache: URL { folder.appendingPathComponent("cache") }
        var environment: [String: String] { ["IMGVIEW_CACHE_DIR": cache.path] }
        var url: String { server.url(for: "/photos/hopper.jpg").absoluteString }

        func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> ImgviewProcess.Result {
            try await ImgviewProcess.run(arguments, environment: environment, directory: folder, timeout: timeout)
        }

        func path(_ relative: String) -> URL { cache.appendingPathComponent(relative) }

        func entryName() -> String { DiskCache.entryName(for: URL(string: url)!) }
    }

    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        server.publish(.data(Self.image, contentType: "image/jpeg"), at: "/photos/hopper.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) { try await body(Setup(server: server, folder: folder)) }
    }

    /// Files outside the cache that links planted inside it point at.
    struct Bait {
        let folder: URL
        var files: [URL] = []

        init(in parent: URL) throws {
            folder = parent.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        mutating func file(_ relative: String) throws -> URL {
            let url = folder.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("precious \(relative)".utf8).write(to: url)
            files.append(url)
            return url
        }

        func expectUntouched(after command: String) {
            for file in files {
                let relative = String(file.path.dropFirst(folder.path.count + 1))
                #expect((try? Data(contentsOf: file)) == Data("precious \(relative)".utf8), "\(relative) after \(command)")
            }
        }
    }

    /// A link in each cache folder, and each cache folder itself a link: verify, prune and clear
    /// remove the links (or replace them with real folders) and never touch what they point at.
    @Test(arguments: [["cache", "verify"], ["cache", "prune"], ["cache", "clear"]])
    func plantedLinksNeverLeadOutside(command: [String]) async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url, "-o", "first.jpg"]).status == 0)
            var bait = try Bait(in: setup.folder)
            let blobs = setup.path("v1/blobs")
            let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: blobs.path).first)
            let fake = String(repeating: "e", count: 64)
            let links: [(String, URL)] = [
                ("v1/entries/\(String(repeating: "d", count: 64)).json", try bait.file("entry.json")),
                ("v1/blobs/\(shard)/\(shard)\(String(repeating: "0", count: 62))", try bait.file("blob")),
                ("v1/blobs/ee", bait.folder.appendingPathComponent("shard")),
                ("v1/tmp/4194305-\(UUID().uuidString).part", try bait.file("download.part")),
                ("v1/counters.json", try bait.file("counters.json")),
                ("v1/misses", try bait.file("misses")),
                ("v1/size", try bait.file("size")),
            ]
            _ = try bait.file("shard/\(fake)")
            for name in ["v1/counters.json", "v1/misses", "v1/size"] { try? FileManager.default.removeItem(at: setup.path(name)) }
            for (name, target) in links {
                try FileManager.default.createSymbolicLink(at: setup.path(name), withDestinationURL: target)
            }
            let result = try await setup.run(command)
            #expect(result.status != 134 && result.status < 128, "\(result.stderr)")
            bait.expectUntouched(after: command.joined(separator: " "))
            // verify removes every link; clear those among entries, blobs and downloads; prune the
            // abandoned download; each of them the size ledger's, which it writes again.
            let removed = links.map(\.0).filter {
                command == ["cache", "verify"]
                    || (command == ["cache", "clear"] && !$0.hasSuffix("counters.json") && !$0.hasSuffix("misses"))
                    || $0.contains("/tmp/") || $0 == "v1/size"
            }
            for name in removed {
                #expect(FileManager.default.destinationOfSymbolicLinkSafely(setup.path(name)) == nil, "\(name) after \(command)")
            }

            // Each of the cache's own folders a link to a folder outside that looks like one of them.
            let folders = [
                "entries": "\(String(repeating: "a", count: 64)).json", "blobs": "ab/ab\(String(repeating: "1", count: 62))",
                "tmp": "4194305-\(UUID().uuidString).part",
            ]
            for (folder, inside) in folders {
                _ = try bait.file("\(folder)/\(inside)")
                try FileManager.default.removeItem(at: setup.path("v1/\(folder)"))
                try FileManager.default.createSymbolicLink(
                    at: setup.path("v1/\(folder)"), withDestinationURL: bait.folder.appendingPathComponent(folder))
            }
            let again = try await setup.run(command)
            #expect(again.status < 128, "\(again.stderr)")
            bait.expectUntouched(after: command.joined(separator: " ") + " with linked folders")
            for folder in folders.keys {
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.destinationOfSymbolicLinkSafely(setup.path("v1/\(folder)")) == nil)
                #expect(
                    FileManager.default.fileExists(atPath: setup.path("v1/\(folder)").path, isDirectory: &isDirectory)
                        && isDirectory.boolValue)
            }
            // And the cache works again.
            #expect(try await setup.run(["get", setup.url, "-o", "second.jpg"]).status == 0)
            #expect(try Data(contentsOf: setup.folder.appendingPathComponent("second.jpg")) == Self.image)
        }
    }

    /// A FIFO where an entry, a blob or the counters belong: no command blocks on it; verify removes it.
    @Test func aFIFOInTheCacheHangsNothing() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url, "-o", "first.jpg"]).status == 0)
            let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: setup.path("v1/blobs").path).first)
            let fifos = [
                "v1/entries/\(String(repeating: "f", count: 64)).json", "v1/blobs/\(shard)/\(shard)\(String(repeating: "9", count: 62))",
                "v1/hits",
            ]
            for fifo in fifos { #expect(mkfifo(setup.path(fifo).path, 0o644) == 0) }
            for command in [["cache", "ls"], ["cache", "stats"], ["get", setup.url, "-o", "again.jpg"], ["cache", "prune"]] {
                let result = try await setup.run(command, timeout: .seconds(15))
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
            // The first hit made `hits` a file again (the cache writes it in place); verify removes the others.
            #expect(setup.path("v1/hits").isRegularFile)
            let verify = try await setup.run(["cache", "verify"], timeout: .seconds(15))
            #expect(verify.status == ImgviewSupport.ExitStatus.cache.rawValue)
            #expect(verify.stdout.components(separatedBy: "removed not-a-file").count - 1 == fifos.count - 1, "\(verify.stdout)")
            #expect(verify.stdout.contains("a FIFO where a file belongs"))
            for fifo in fifos.dropLast() { #expect(!FileManager.default.fileExists(atPath: setup.path(fifo).path)) }
            #expect(try await setup.run(["cache", "verify"], timeout: .seconds(15)).status == 0)
        }
    }

    /// A folder where the entry of a URL belongs is damage that heals: the next get stores over it.
    @Test func aFolderWhereAnEntryBelongsHeals() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["cache", "ls"]).status == 0)
            try FileManager.default.createDirectory(
                at: setup.path("v1/entries/\(setup.entryName())/inner"), withIntermediateDirectories: true)
            let result = try await setup.run(["get", setup.url])
            #expect(result.status == 0, "\(result.stderr)")
            let cache = try DiskCache(directory: setup.cache)
            #expect(cache.entry(for: URL(string: setup.url)!) != nil)
        }
    }

    /// Leftovers of a `kill -9` are upkeep: verify tidies them and exits 0.
    @Test func abandonedTemporaryFilesAreUpkeepNotDamage() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url]).status == 0)
            try Data(count: 100).write(to: setup.path("v1/tmp/4194305-\(UUID().uuidString).part"))
            let result = try await setup.run(["cache", "verify"])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("tidied 1 abandoned temporary file"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: setup.path("v1/tmp").path).isEmpty)
        }
    }

    /// A cache the user may only read can still be listed and counted (run as `nobody`).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func aReadOnlyCacheCanBeListed() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url]).status == 0)
            // The test folder is private to root by default; nobody needs to reach the cache in it.
            chmod(setup.folder.path, 0o755)
            for command in [["cache", "ls"], ["cache", "stats"]] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", ImgviewProcess.binary.path] + command
                process.environment = ImgviewProcess.environment(setup.environment)
                let stdout = Pipe()
                let stderr = Pipe()
                process.standardOutput = stdout
                process.standardError = stderr
                try process.run()
                async let out = readToEnd(stdout)
                async let err = readToEnd(stderr)
                let (output, errors) = (String(decoding: await out, as: UTF8.self), String(decoding: await err, as: UTF8.self))
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(command): \(errors)")
                #expect(output.contains(command == ["cache", "ls"] ? setup.url : "entries"), "\(output)")
            }
        }
    }

    /// Runs `imgview` as `nobody` (uid 65534), who may read the test's folders but not write them.
    func runAsNobody(_ arguments: [String], setup: Setup, environment extra: [String: String] = [:]) async throws -> ImgviewProcess.Result {
        try await ImgviewProcess.run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", ImgviewProcess.binary.path] + arguments,
            executable: URL(fileURLWithPath: "/usr/bin/setpriv"), environment: setup.environment.merging(extra) { $1 },
            directory: setup.folder)
    }

    /// A cache the user may not write still serves what it holds: a hit needs no write, so `get`,
    /// `show` and `info` of a cached image succeed without the network, and an image not cached is
    /// fetched (into the system's temporary folder) and not kept. It failed every reader (exit 9).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func aReadOnlyCacheServesHits() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url, "-o", "first.jpg"]).status == 0)
            chmod(setup.folder.path, 0o777)  // nobody writes outputs here, never in the cache
            let other = setup.server.url(for: "/photos/other.jpg").absoluteString
            setup.server.publish(.data(Self.image + Data([0]), contentType: "image/jpeg"), at: "/photos/other.jpg")
            let runs: [[String]] = [
                ["get", setup.url, "-o", "hit.jpg"], ["show", setup.url, "--size", "10x5", "--mode", "ascii"], ["info", setup.url],
                ["get", other, "-o", "miss.jpg"],
            ]
            for arguments in runs {
                let result = try await runAsNobody(arguments, setup: setup)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            }
            #expect(try Data(contentsOf: setup.folder.appendingPathComponent("hit.jpg")) == Self.image)
            #expect(try Data(contentsOf: setup.folder.appendingPathComponent("miss.jpg")) == Self.image + Data([0]))
            #expect(setup.server.requests(for: "/photos/hopper.jpg").count == 1)
            #expect(setup.server.requests(for: "/photos/other.jpg").count == 1)
            #expect(try DiskCache(directory: setup.cache).entries().count == 1)
        }
    }

    /// The same on a read-only file system (a read-only bind mount in a private namespace), where
    /// even root may not write.
    @Test(.enabled(if: LocalFootprintTests.canMountTmpfs, "needs unshare and mounts (root, or user namespaces)"))
    func aCacheOnAReadOnlyFileSystemServesHits() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url, "-o", "first.jpg"]).status == 0)
            let script = """
                mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99
                IMGVIEW_CACHE_DIR="$1" "$2" get "$3" -o "$4/hit.jpg" || exit $?
                IMGVIEW_CACHE_DIR="$1" "$2" info "$3" >/dev/null
                """
            let result = try await LocalFootprintTests.runUnshared(
                script, arguments: [setup.cache.path, ImgviewProcess.binary.path, setup.url, setup.folder.path], directory: setup.folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            #expect(try Data(contentsOf: setup.folder.appendingPathComponent("hit.jpg")) == Self.image)
            #expect(setup.server.requests(for: "/photos/hopper.jpg").count == 1)
        }
    }

    /// A folder (or FIFO, or link) where the lock belongs is damage that heals: the next store makes
    /// a real lock file, and `cache verify` removes it and says so. It made the cache unusable.
    @Test func aFolderAtTheLockIsRepaired() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url, "-o", "first.jpg"]).status == 0)
            func plant() throws {
                try FileManager.default.removeItem(at: setup.path("v1/lock"))
                try FileManager.default.createDirectory(at: setup.path("v1/lock/inner"), withIntermediateDirectories: true)
            }
            try plant()
            let other = setup.server.url(for: "/photos/other.jpg").absoluteString
            setup.server.publish(.data(Self.image + Data([0]), contentType: "image/jpeg"), at: "/photos/other.jpg")
            let miss = try await setup.run(["get", other, "-o", "other.jpg"])
            #expect(miss.status == 0, "\(miss.stderr)")
            #expect(try DiskCache(directory: setup.cache).entries().count == 2)
            #expect(setup.path("v1/lock").isRegularFile)

            try plant()
            let verify = try await setup.run(["cache", "verify"])
            #expect(verify.status == ImgviewSupport.ExitStatus.cache.rawValue, "\(verify.stderr)")
            #expect(verify.stdout.contains("removed not-a-file v1/lock: a folder where a file belongs"), "\(verify.stdout)")
            #expect(setup.path("v1/lock").isRegularFile)
            #expect(try await setup.run(["cache", "verify"]).status == 0)
        }
    }

    /// A hard link planted where a file the cache writes in place belongs (`hits`, an entry whose
    /// time a hit sets) leads to a file outside the cache that `O_NOFOLLOW` cannot see: a hit
    /// writes nothing through it, and `cache verify` removes the link. A hit appended a byte there.
    @Test func aHardLinkInTheCacheWritesNothingOutside() async throws {
        try await withSetup { setup in
            #expect(try await setup.run(["get", setup.url, "-o", "first.jpg"]).status == 0)
            var bait = try Bait(in: setup.folder)
            let hitsBait = try bait.file("hits")
            try? FileManager.default.removeItem(at: setup.path("v1/hits"))
            #expect(link(hitsBait.path, setup.path("v1/hits").path) == 0)
            // The entry moves outside, and a hard link to it takes its place: a hit would set its time.
            let entry = setup.path("v1/entries/\(setup.entryName())")
            let entryBait = bait.folder.appendingPathComponent("entry.json")
            try FileManager.default.moveItem(at: entry, to: entryBait)
            #expect(link(entryBait.path, entry.path) == 0)
            let old = Date(timeIntervalSince1970: 1_000_000_000)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: entryBait.path)

            let hit = try await setup.run(["get", setup.url, "-o", "second.jpg"])
            #expect(hit.status == 0, "\(hit.stderr)")
            bait.expectUntouched(after: "a hit")
            let modified = try FileManager.default.attributesOfItem(atPath: entryBait.path)[.modificationDate] as? Date
            #expect(modified == old)

            // The hit made `hits` a file of the cache's own again, and counted itself there.
            #expect(setup.path("v1/hits").isRegularFile)
            #expect(try FileManager.default.attributesOfItem(atPath: setup.path("v1/hits").path)[.referenceCount] as? Int == 1)

            let verify = try await setup.run(["cache", "verify"])
            #expect(verify.status == ImgviewSupport.ExitStatus.cache.rawValue)
            #expect(
                verify.stdout.contains(
                    "removed not-a-file v1/entries/\(setup.entryName()): a hard link (a file with another name elsewhere) where a file belongs"
                ),
                "\(verify.stdout)")
            bait.expectUntouched(after: "cache verify")
            #expect(try Data(contentsOf: entryBait).count > 0)
        }
    }

    /// An image replaced on the server takes its old blob with it; a blob a crash left behind is
    /// upkeep. `cache verify` reported the old blob as damage (exit 9).
    @Test func aReplacedImageLeavesNoOrphanAndOrphansAreUpkeep() async throws {
        try await withSetup { setup in
            setup.server.publish(.data(Self.image, contentType: "image/jpeg", cacheControl: "max-age=0"), at: "/photos/hopper.jpg")
            #expect(try await setup.run(["get", setup.url, "-o", "first.jpg"]).status == 0)
            let changed = Self.image + Data([0xFF, 0xD9])
            setup.server.publish(.data(changed, contentType: "image/jpeg", cacheControl: "max-age=0"), at: "/photos/hopper.jpg")
            #expect(try await setup.run(["get", setup.url, "-o", "second.jpg"]).status == 0)
            let blobs = try DiskCache(directory: setup.cache).blobSizes()
            #expect(Array(blobs.keys) == [sha256Hex(changed)])
            let verify = try await setup.run(["cache", "verify"])
            #expect(verify.status == 0, "\(verify.stdout)")
            #expect(!verify.stdout.contains("orphaned"), "\(verify.stdout)")

            // What a process stopped between a blob and its entry leaves.
            let orphan = Data("orphan".utf8)
            let name = sha256Hex(orphan)
            try FileManager.default.createDirectory(at: setup.path("v1/blobs/\(name.prefix(2))"), withIntermediateDirectories: true)
            try orphan.write(to: setup.path("v1/blobs/\(name.prefix(2))/\(name)"))
            let tidy = try await setup.run(["cache", "verify"])
            #expect(tidy.status == 0, "\(tidy.stdout)\(tidy.stderr)")
            #expect(tidy.stdout.contains("tidied 1 orphaned blob (6 B no entry referenced)"), "\(tidy.stdout)")
        }
    }

    /// A cache hit flushes nothing, takes no exclusive lock, reads its blob once and makes one
    /// output file: strace sees no fsync, no LOCK_EX, one open of the blob, one unnamed file. Also for an image whose pixel size cannot be
    /// read (so its entry never gets one), which once rewrote its entry and hashed its blob twice on
    /// every hit.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")), arguments: ["photo", "size unknown"])
    func aCacheHitWritesNothingDurable(_ image: String) async throws {
        try await withSetup { setup in
            var url = setup.url
            if image == "size unknown" {
                let body = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
                setup.server.publish(.data(body, contentType: "image/jpeg"), at: "/photos/noise.jpg")
                url = setup.server.url(for: "/photos/noise.jpg").absoluteString
            }
            #expect(try await setup.run(["get", url, "-o", "first.jpg"]).status == 0)
            let log = setup.folder.appendingPathComponent("strace.log")
            let result = try await ImgviewProcess.run(
                [
                    "-f", "-qq", "-e", "trace=fsync,fdatasync,syncfs,sync_file_range,flock,openat,linkat", "-o", log.path,
                    ImgviewProcess.binary.path, "get", url, "-o", "second.jpg",
                ],
                executable: URL(fileURLWithPath: "/usr/bin/strace"), environment: setup.environment, directory: setup.folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(setup.server.requests(for: URL(string: url)!.path).count == 1)
            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            let calls = lines.filter { !$0.contains("openat(") && !$0.contains("linkat(") }.joined(separator: "\n")
            #expect(!calls.contains("fsync") && !calls.contains("fdatasync") && !calls.contains("sync_file_range"), "\(calls)")
            #expect(!calls.contains("LOCK_EX"), "\(calls)")
            #expect(calls.contains("LOCK_SH"), "the hit is counted under the shared lock: \(calls)")
            // Blobs are named by their SHA-256; entries by the URL's, with ".json" after it.
            let blobOpens = lines.filter { $0.contains(#/(openat|linkat)\(\d+, "[0-9a-f]{64}"/#) }
            #expect(blobOpens.count == 1, "\(blobOpens)")
            // One unnamed file, the output's: the draft a download would fill is never made.
            let unnamed = lines.filter { $0.contains("O_TMPFILE") }
            #expect(unnamed.count == 1, "\(unnamed)")
            let stats = try await setup.run(["cache", "stats"])
            #expect(stats.stdout.contains("hits\t1\n"), "\(stats.stdout)")
        }
    }

    /// `cache clear` in a loop while eight `get` loops read the same images: no get fails, and
    /// every output holds exactly the image's bytes.
    @Test func readersSurviveAConcurrentClear() async throws {
        try await withSetup { setup in
            let big = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
            let large = Data([0xFF, 0xD8, 0xFF, 0xE0]) + big  // sniffs as JPEG; large enough to be read through a link
            setup.server.publish(.data(large, contentType: "image/jpeg"), at: "/photos/large.jpg")
            let urls = [setup.url, setup.server.url(for: "/photos/large.jpg").absoluteString]
            let clearing = Task {
                var clears = 0
                while !Task.isCancelled {
                    _ = try? await setup.run(["cache", "clear"])
                    clears += 1
                }
                return clears
            }
            let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var failures: [String] = []
                        for round in 0..<6 {
                            let url = urls[(worker + round) % 2]
                            let name = "out-\(worker)-\(round).jpg"
                            let result = try await setup.run(["get", url, "-o", name])
                            if result.status != 0 { failures.append("\(name): \(result.status) \(result.stderr)") }
                            let expected = url == setup.url ? Self.image : large
                            if (try? Data(contentsOf: setup.folder.appendingPathComponent(name))) != expected {
                                failures.append("\(name): bytes differ")
                            }
                        }
                        return failures
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            clearing.cancel()
            let clears = await clearing.value
            #expect(failures.isEmpty, "\(failures)")
            #expect(clears > 2)
        }
    }
}

extension URL {
    /// Whether a regular file (not a link to one) is here.
    fileprivate var isRegularFile: Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}

extension FileManager {
    /// Where the link at `url` points, or nil when there is no link there.
    fileprivate func destinationOfSymbolicLinkSafely(_ url: URL) -> String? {
        try? destinationOfSymbolicLink(atPath: url.path)
    }
}
