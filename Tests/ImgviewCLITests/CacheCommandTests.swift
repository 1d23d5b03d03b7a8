import Foundation
import ImgviewServer
import ImgviewTestSupport
import Testing

@testable import ImgviewFetching
@testable import ImgviewSupport

/// `imgview cache …` and the cached column of `list`, run as a user runs them, against the loopback server.
@Suite("imgview cache")
struct CacheCommandTests {
    static func asset(_ name: String) -> Data {
        try! Data(contentsOf: ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/\(name)"))
    }

    static let hopper = asset("01_grace_hopper.jpg")
    static let cat = asset("03_chelsea_cat.png")

    struct Setup {
        let server: LoopbackServer
        let folder: URL
        var cache: URL { folder.appendingPathComponent("cache") }
        var catalog: URL { folder.appendingPathComponent("catalog.json") }
        var environment: [String: String] { ["IMGVIEW_CACHE_DIR": cache.path, "IMGVIEW_CATALOG": catalog.path] }

        func url(_ path: String) -> URL { server.url(for: path) }

        func run(_ arguments: [String]) async throws -> ImgviewProcess.Result {
            try await ImgviewProcess.run(arguments, environment: environment, directory: folder)
        }

        /// `get` into the cache (and a throwaway file), failing the test if it fails.
        func get(_ names: [String]) async throws {
            let result = try await run(["get"] + names + ["-O", folder.appendingPathComponent("out").path, "--force"])
            #expect(result.status == 0, "\(result.stderr)")
        }

        func disk(now: Date = Date()) throws -> DiskCache { try DiskCache(directory: cache, now: { now }) }

        /// Sets an entry's last use, as if it had been used `daysAgo` days ago.
        func use(_ path: String, daysAgo: Double) throws {
            let disk = try disk(now: Date().addingTimeInterval(-daysAgo * 86400))
            disk.touch(try #require(disk.entry(for: url(path))))
        }
    }

    func withSetup(_ body: (Setup) async throws -> Void) async throws {
        let server = try await LoopbackServer.start()
        let folder = try makeTemporaryDirectory()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        let setup = Setup(server: server, folder: folder)
        server.publish(.data(Self.hopper, contentType: "image/jpeg", cacheControl: "max-age=3600"), at: "/hopper.jpg")
        server.publish(.data(Self.cat, contentType: "image/png"), at: "/cat.png")
        server.publish(.data(Self.cat, contentType: "image/png"), at: "/same-cat.png")
        let catalog =
            #"{"images": [{"name": "hopper", "url": "\#(server.url(for: "/hopper.jpg"))"}, "#
            + #"{"name": "cat", "url": "\#(server.url(for: "/cat.png"))"}, {"name": "other", "url": "\#(server.url(for: "/other.png"))"}]}"#
        try Data(catalog.utf8).write(to: setup.catalog)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await stopping(server) { try await body(setup) }
    }

    // MARK: ls

    @Test func lsPrintsTabSeparatedLinesMostRecentlyUsedFirst() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper", "cat", setup.url("/same-cat.png").absoluteString])
            try setup.use("/hopper.jpg", daysAgo: 0)
            try setup.use("/cat.png", daysAgo: 2)
            try setup.use("/same-cat.png", daysAgo: 1)

            let result = try await setup.run(["cache", "ls"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            let rows = result.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
            #expect(rows.map { $0.count } == [10, 10, 10])
            #expect(rows.map { String($0[0]) } == ["hopper", "-", "cat"])
            #expect(rows[0][1] == setup.url("/hopper.jpg").absoluteString)
            #expect(rows[0][2] == "\(Self.hopper.count)")
            #expect(rows[0][3] == "jpeg")
            #expect(rows[0][4] == "512x600")
            #expect(rows[2][3] == "png")
            #expect(rows[2][4] == "451x300")
            #expect(rows[0][5].count == 20 && rows[0][5].hasSuffix("Z"))
            #expect(rows[0][7] == "fresh")
            #expect(rows[0][9].hasPrefix("\""))
        }
    }

    @Test func lsJSONHasEveryKeyForEveryEntry() async throws {
        try await withSetup { setup in
            let empty = try await setup.run(["cache", "ls", "--json"])
            #expect(empty.status == 0)
            #expect(empty.stdout == "{\"entries\": [], \"partials\": []}\n")
            // Looking created nothing.
            #expect(!FileManager.default.fileExists(atPath: setup.cache.path))

            try await setup.get(["hopper", setup.url("/same-cat.png").absoluteString])
            let result = try await setup.run(["cache", "ls", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let entries = try #require(object?["entries"] as? [[String: Any]])
            #expect(entries.count == 2)
            let keys: Set<String> = [
                "name", "url", "final_url", "bytes", "format", "width", "height", "sha256", "content_type", "etag", "last_modified",
                "fetched_at", "last_used_at", "fresh_until", "fresh", "revalidations", "thumbnails",
            ]
            for entry in entries { #expect(Set(entry.keys) == keys) }
            // `get` makes no thumbnails: the sizes the grid kept, none here.
            for entry in entries { #expect((entry["thumbnails"] as? [Int]) == []) }
            let hopper = try #require(entries.first { $0["name"] as? String == "hopper" })
            #expect(hopper["bytes"] as? Int == Self.hopper.count)
            #expect(hopper["width"] as? Int == 512)
            #expect(hopper["height"] as? Int == 600)
            #expect(hopper["fresh"] as? Bool == true)
            #expect(hopper["sha256"] as? String == sha256Hex(Data(Self.hopper)))
            let other = try #require(entries.first { $0["url"] as? String == setup.url("/same-cat.png").absoluteString })
            #expect(other["name"] is NSNull)
        }
    }

    @Test func lsOnATerminalIsATableFittedToTheWidth() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper", "cat"])
            let wide = try await ImgviewProcess.runOnTerminal(["cache", "ls"], columns: 200, environment: setup.environment)
            #expect(wide.status == 0, "\(wide.stderr)")
            let lines = wide.stdout.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines[0].hasPrefix("NAME"))
            #expect(lines[0].contains("ETAG"))
            #expect(wide.stdout.contains("JPEG 512×600"))
            #expect(wide.stdout.contains("fresh for 59m"))
            #expect(wide.stdout.contains(setup.url("/hopper.jpg").absoluteString))

            let narrow = try await ImgviewProcess.runOnTerminal(["cache", "ls"], columns: 80, environment: setup.environment)
            #expect(narrow.status == 0)
            for line in narrow.stdout.split(separator: "\n") { #expect(line.count <= 80, "\(line)") }
            #expect(narrow.stdout.contains("…"))
            #expect(narrow.stdout.contains("/hopper.jpg"))
            #expect(!narrow.stdout.contains("ETAG"))

            let empty = try await ImgviewProcess.runOnTerminal(
                ["cache", "ls"], columns: 80, environment: ["IMGVIEW_CACHE_DIR": setup.folder.appendingPathComponent("none").path])
            #expect(empty.stdout.hasPrefix("The cache is empty"))
        }
    }

    @Test func lsStillWorksWhenTheCatalogCannotBeRead() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper"])
            let result = try await ImgviewProcess.run(
                ["cache", "ls"], environment: ["IMGVIEW_CACHE_DIR": setup.cache.path, "IMGVIEW_CATALOG": "/nonexistent/c.json"])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("-\t\(setup.url("/hopper.jpg"))"))
            #expect(
                result.errorLine == "imgview: warning: catalog /nonexistent/c.json: cannot be read: no such file; catalog names not shown")
        }
    }

    // MARK: stats

    @Test func statsCountsEveryRunAndKnowsTheOldestAndNewest() async throws {
        try await withSetup { setup in
            // Revalidated on every use: max-age=0, with an ETag.
            setup.server.publish(.data(Self.cat, contentType: "image/png", cacheControl: "max-age=0"), at: "/cat.png")
            try await setup.get(["hopper"])  // miss
            try await setup.get(["hopper"])  // hit
            try await setup.get(["cat"])  // miss
            try await setup.get(["cat"])  // revalidation
            _ = try await setup.run(["--offline", "get", "other", "-O", setup.folder.path])  // miss
            // Both were fetched within a second or two; make hopper a day older.
            let disk = try setup.disk()
            var hopper = try #require(disk.entry(for: setup.url("/hopper.jpg")))
            hopper.fetchedAt.addTimeInterval(-86400)
            try disk.write(hopper)

            let result = try await setup.run(["cache", "stats", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let stats = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(stats["entries"] as? Int == 2)
            #expect(stats["bytes"] as? Int == Self.hopper.count + Self.cat.count)
            #expect(stats["limit"] as? Int == 1 << 30)
            #expect(stats["hits"] as? Int == 1)
            #expect(stats["misses"] as? Int == 3)
            #expect(stats["revalidations"] as? Int == 1)
            #expect(stats["evictions"] as? Int == 0)
            #expect(stats["directory"] as? String == setup.cache.path)
            #expect((stats["oldest"] as? [String: Any])?["url"] as? String == setup.url("/hopper.jpg").absoluteString)
            #expect((stats["newest"] as? [String: Any])?["url"] as? String == setup.url("/cat.png").absoluteString)

            let plain = try await setup.run(["cache", "stats"])
            let lines = plain.stdout.split(separator: "\n")
            #expect(lines.contains("entries\t2"))
            #expect(lines.contains("hits\t1"))
            #expect(lines.contains("limit\t1073741824"))
            #expect(lines.contains { $0.hasPrefix("oldest\t") && $0.hasSuffix("\t\(setup.url("/hopper.jpg"))") })

            let human = try await ImgviewProcess.runOnTerminal(["cache", "stats"], columns: 100, environment: setup.environment)
            #expect(human.stdout.contains("size           \(ByteCount.formatBinary(Int64(Self.hopper.count + Self.cat.count))) of 1 GiB"))
            #expect(human.stdout.contains("misses         3"))
        }
    }

    // MARK: clear

    @Test func clearRemovesNamedEntriesAndSaysWhat() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper", "cat", setup.url("/same-cat.png").absoluteString])
            let named = try await setup.run(["cache", "clear", "cat", "other", setup.url("/hopper.jpg").absoluteString])
            #expect(named.status == 0, "\(named.stderr)")
            #expect(
                named.stdout == """
                    removed cat (\(setup.url("/cat.png"))) (\(ByteCount.format(Int64(Self.cat.count))))
                    not cached: other (\(setup.url("/other.png")))
                    removed \(setup.url("/hopper.jpg")) (\(ByteCount.format(Int64(Self.hopper.count))))
                    removed 2 entries, freed \(ByteCount.format(Int64(Self.hopper.count)))

                    """)
            // The cat's bytes stay: same-cat.png still uses them.
            #expect(try setup.disk().entries().map(\.url) == [setup.url("/same-cat.png")])
            #expect(try setup.disk().totalSize == Int64(Self.cat.count))
        }
    }

    @Test func clearWithAnUnknownNameRemovesNothing() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper"])
            let result = try await setup.run(["cache", "clear", "hopper", "nosuch"])
            #expect(result.status == ImgviewSupport.ExitStatus.notFound.rawValue)
            #expect(result.errorLine.hasPrefix("imgview: no image called \"nosuch\" in the catalog"))
            #expect(!result.errorLine.contains("\n"))
            #expect(result.stdout.isEmpty)
            #expect(try setup.disk().entries().count == 1)
        }
    }

    @Test func clearWithoutNamesEmptiesTheCacheButKeepsTheCounters() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper", "cat"])
            let result = try await setup.run(["cache", "clear"])
            #expect(result.status == 0)
            #expect(result.stdout == "removed 2 entries, freed \(ByteCount.format(Int64(Self.hopper.count + Self.cat.count)))\n")
            #expect(try setup.disk().entries().isEmpty)
            #expect(try setup.disk().totalSize == 0)
            #expect(try setup.disk().counters().misses == 2)
        }
    }

    // MARK: prune

    @Test func pruneByAgeAndBySize() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper", "cat", setup.url("/same-cat.png").absoluteString])
            try setup.use("/hopper.jpg", daysAgo: 10)
            try setup.use("/cat.png", daysAgo: 3)
            try setup.use("/same-cat.png", daysAgo: 0)

            let old = try await setup.run(["cache", "prune", "--older-than", "7d"])
            #expect(old.status == 0, "\(old.stderr)")
            #expect(
                old.stdout == """
                    removed \(setup.url("/hopper.jpg")) (\(ByteCount.format(Int64(Self.hopper.count))), last used 10d ago)
                    removed 1 entry, freed \(ByteCount.format(Int64(Self.hopper.count)))

                    """)
            // Two entries, one blob of the cat's size: 1K forces both out together.
            let sized = try await setup.run(["cache", "prune", "--max-size", "1K"])
            #expect(sized.stdout.hasSuffix("removed 2 entries, freed \(ByteCount.format(Int64(Self.cat.count)))\n"))
            #expect(try setup.disk().entries().isEmpty)
            #expect(try setup.disk().counters().evictions == 3)

            let nothing = try await setup.run(["cache", "prune", "--max-size", "1.5G", "--older-than", "1d12h"])
            #expect(nothing.stdout == "removed 0 entries, freed 0 B\n")
        }
    }

    @Test(arguments: [
        (["--max-size", "12X"], "imgview: --max-size: \"12X\" is not a size (use e.g. 500K, 200M, 1.5G)"),
        (["--max-size=-1M"], "imgview: --max-size: \"-1M\" is not a size (use e.g. 500K, 200M, 1.5G)"),
        (["--older-than", "7"], "imgview: --older-than: \"7\" is not a duration (use e.g. 30m, 12h, 7d)"),
        (["--older-than", "1y"], "imgview: --older-than: \"1y\" is not a duration (use e.g. 30m, 12h, 7d)"),
    ])
    func pruneRefusesBadSizesAndDurations(arguments: [String], message: String) async throws {
        let result = try await ImgviewProcess.run(["cache", "prune"] + arguments)
        #expect(result.status == ImgviewSupport.ExitStatus.usage.rawValue)
        #expect(result.stderr == message + "\n")
        #expect(result.stdout.isEmpty)
    }

    // MARK: verify

    @Test func verifyFindsADamagedBlobAndAnOrphanedMetadataFile() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper", "cat"])
            let clean = try await setup.run(["cache", "verify"])
            #expect(clean.status == 0, "\(clean.stderr)")
            #expect(clean.stdout == "checked 2 entries, 2 blobs (\(ByteCount.format(Int64(Self.hopper.count + Self.cat.count))))\n")

            let disk = try setup.disk()
            let hopper = try #require(disk.entry(for: setup.url("/hopper.jpg")))
            let cat = try #require(disk.entry(for: setup.url("/cat.png")))
            // A flipped bit in hopper's blob; cat's metadata left without its blob.
            let hopperBlob = disk.blobURL(for: hopper)
            var bytes = try Data(contentsOf: hopperBlob)
            bytes[bytes.count / 2] ^= 0x10
            try bytes.write(to: hopperBlob)
            try FileManager.default.removeItem(at: disk.blobURL(for: cat))

            let damaged = try await setup.run(["cache", "verify"])
            #expect(damaged.status == ImgviewSupport.ExitStatus.cache.rawValue)
            #expect(damaged.stderr == "imgview: cache verify: found and removed 2 problems\n")
            let lines = damaged.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            #expect(
                lines.contains(
                    "removed damaged-blob v1/blobs/\(hopper.sha256.prefix(2))/\(hopper.sha256) \(setup.url("/hopper.jpg")): content does not match its SHA-256"
                ))
            #expect(
                lines.contains {
                    $0.hasPrefix("removed missing-blob v1/entries/") && $0.hasSuffix("\(setup.url("/cat.png")): its blob is missing")
                })
            #expect(try setup.disk().entries().isEmpty)

            // Repaired: the next run is clean, and get fetches hopper again.
            #expect(try await setup.run(["cache", "verify"]).status == 0)
            try await setup.get(["hopper"])
            #expect(setup.server.requests(for: "/hopper.jpg").count == 2)
        }
    }

    @Test func verifyJSONReportsUnreadableMetadataAndCountsOrphans() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper"])
            let disk = try setup.disk()
            let hopper = try #require(disk.entry(for: setup.url("/hopper.jpg")))
            try FileManager.default.removeItem(at: disk.entryURL(for: hopper.url))
            try Data("{\"url\": ".utf8).write(to: setup.cache.appendingPathComponent("v1/entries/abc.json"))

            let result = try await setup.run(["cache", "verify", "--json"])
            #expect(result.status == ImgviewSupport.ExitStatus.cache.rawValue)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(report["entries"] as? Int == 0)
            let problems = try #require(report["problems"] as? [[String: Any]])
            #expect(problems.compactMap { $0["kind"] as? String } == ["unreadable-entry"])
            #expect(problems.contains { $0["path"] as? String == "v1/entries/abc.json" && $0["url"] is NSNull })
            // The blob hopper's entry left is upkeep, counted apart from the damage.
            #expect(report["orphaned_blobs"] as? Int == 1)
            #expect(try setup.disk().totalSize == 0)
        }
    }

    // MARK: path, list, global options

    @Test func pathPrintsTheCacheFolderWhereverTheOptionIs() async throws {
        let viaEnvironment = try await ImgviewProcess.run(["cache", "path"], environment: ["IMGVIEW_CACHE_DIR": "/tmp/some cache"])
        #expect(viaEnvironment.stdout == "/tmp/some cache\n")
        for arguments in [
            ["--cache-dir", "/tmp/c", "cache", "path"], ["cache", "--cache-dir", "/tmp/c", "path"],
            ["cache", "path", "--cache-dir=/tmp/c"],
        ] {
            let result = try await ImgviewProcess.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout == "/tmp/c\n")
        }
        let xdg = try await ImgviewProcess.run(["cache", "path"], environment: ["IMGVIEW_CACHE_DIR": "", "XDG_CACHE_HOME": "/tmp/xdg"])
        #expect(xdg.stdout == "/tmp/xdg/imgview\n")
    }

    @Test(arguments: [["cache", "--help"], ["cache", "ls", "--help"], ["help", "cache", "prune"], ["cache", "verify", "--help"]])
    func helpOnEveryCacheCommand(arguments: [String]) async throws {
        let result = try await ImgviewProcess.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: imgview cache"))
    }

    @Test func listSaysWhatIsCached() async throws {
        try await withSetup { setup in
            try await setup.get(["hopper"])
            let table = try await setup.run(["list"])
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n")
            #expect(lines[0].hasPrefix("hopper\t") && lines[0].hasSuffix("\tfresh"))
            #expect(lines[1].hasPrefix("cat\t") && lines[1].hasSuffix("\tno"))

            let json = try await setup.run(["list", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let images = try #require(object["images"] as? [[String: Any]])
            #expect(images.map { $0["cached"] as? Bool } == [true, false, false])
            #expect(images.map { $0["fresh"] as? Bool } == [true, false, false])
            // Still a catalog that --catalog reads.
            try Data(json.stdout.utf8).write(to: setup.catalog)
            #expect(try await setup.run(["list"]).status == 0)
        }
    }

    // MARK: Another process downloading meanwhile

    @Test func everyCommandIsSafeWhileAnotherProcessDownloads() async throws {
        try await withSetup { setup in
            try await setup.get(["cat"])
            // A download in a second imgview process, held until the checks are done (a slow body
            // instead was over before them on a loaded machine, under ThreadSanitizer), and held
            // past its first whole block (1 MiB), so that its bytes are on disk, with the validators
            // a later fetch would continue them with.
            let gate = BodyGate()
            defer { gate.open() }
            setup.server.publish(
                .data(Self.hopper + Data(count: 1_500_000), contentType: "image/jpeg"), at: "/slow.jpg",
                faults: [.held(after: 1_200_000, until: gate, chunkSize: 64 << 10, delayPerChunk: .zero)])
            let (downloader, stdout, stderr) = try ImgviewProcess.start(
                ["get", setup.url("/slow.jpg").absoluteString, "-O", setup.folder.appendingPathComponent("out").path, "--quiet"],
                environment: setup.environment)
            async let downloaderOut = readToEnd(stdout)
            async let downloaderErr = readToEnd(stderr)
            let temporary = setup.cache.appendingPathComponent("v1/tmp")
            // The download's bytes, and beside them the validators a later fetch would continue them with.
            try await eventually { ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).count == 2 }
            #expect(downloader.isRunning)

            let ls = try await setup.run(["cache", "ls"])
            #expect(ls.status == 0)
            // The stored entry, then the download under way, as the partial it would leave if cut.
            let lines = ls.stdout.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.last?.contains("\tpartial ") == true, "\(ls.stdout)")
            #expect(try await setup.run(["cache", "stats"]).status == 0)
            let verify = try await setup.run(["cache", "verify"])
            #expect(verify.status == 0, "a download in progress is not damage: \(verify.stdout)")
            let prune = try await setup.run(["cache", "prune", "--older-than", "1d"])
            #expect(prune.stdout == "removed 0 entries, freed 0 B\n")
            #expect(downloader.isRunning, "the checks ran while the download was still going")

            gate.open()
            while downloader.isRunning { try await Task.sleep(for: .milliseconds(20)) }
            _ = await (downloaderOut, downloaderErr)
            #expect(downloader.terminationStatus == 0)
            let after = try await setup.run(["cache", "ls"])
            #expect(after.stdout.split(separator: "\n").count == 2)
            #expect(try await setup.run(["cache", "verify"]).status == 0)
        }
    }

    @Test func verifyAndListStayCorrectWhileAnotherProcessStoresMany() async throws {
        try await withSetup { setup in
            try await setup.get(["cat"])
            var urls: [String] = []
            for index in 0..<30 {
                let path = "/many\(index).png"
                setup.server.publish(
                    .data(Self.cat + Data([UInt8(index)]), contentType: "image/png"), at: path, faults: [.delay(.milliseconds(40))])
                urls.append(setup.url(path).absoluteString)
            }
            let (writer, stdout, stderr) = try ImgviewProcess.start(
                ["get"] + urls + ["-O", setup.folder.appendingPathComponent("out").path, "--jobs", "3", "--quiet"],
                environment: setup.environment)
            async let writerOut = readToEnd(stdout)
            async let writerErr = readToEnd(stderr)
            // Blobs and entries appear while these run; a blob renamed into place a moment before
            // its entry must never be taken for an orphan.
            var rounds = 0
            while writer.isRunning {
                let verify = try await setup.run(["cache", "verify"])
                #expect(verify.status == 0, "\(verify.stdout)")
                let ls = try await setup.run(["cache", "ls"])
                #expect(ls.status == 0)
                #expect(ls.stdout.split(separator: "\n").allSatisfy { $0.split(separator: "\t").count == 10 })
                #expect(try await setup.run(["cache", "stats", "--json"]).status == 0)
                rounds += 1
            }
            _ = await (writerOut, writerErr)
            #expect(writer.terminationStatus == 0)
            #expect(rounds > 0)
            #expect(try await setup.run(["cache", "ls"]).stdout.split(separator: "\n").count == 31)
            #expect(try await setup.run(["cache", "verify"]).status == 0)
        }
    }

    @Test func countersAddUpOverConcurrentProcesses() async throws {
        try await withSetup { setup in
            for index in 0..<4 {
                setup.server.publish(.data(Self.cat + Data([UInt8(index)]), contentType: "image/png"), at: "/c\(index).png")
            }
            // Four processes at once, each downloading its own image then reading it back from disk.
            try await withThrowingTaskGroup(of: ImgviewProcess.Result.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let url = setup.url("/c\(index).png").absoluteString
                        let out = setup.folder.appendingPathComponent("out").path
                        _ = try await setup.run(["get", url, "-O", out, "--force"])
                        return try await setup.run(["get", url, "-O", out, "--force"])
                    }
                }
                for try await result in group { #expect(result.status == 0, "\(result.stderr)") }
            }
            let stats = try await setup.run(["cache", "stats"])
            #expect(stats.stdout.contains("entries\t4\n"))
            #expect(stats.stdout.contains("hits\t4\n"))
            #expect(stats.stdout.contains("misses\t4\n"))
        }
    }

    @Test func concurrentProcessesKeepTheSizeLedgerRightAndTheLimit() async throws {
        try await withSetup { setup in
            let size = Self.cat.count + 20_000
            for index in 0..<24 {
                setup.server.publish(
                    .data(Self.cat + Data(repeating: UInt8(index), count: 20_000), contentType: "image/png"), at: "/l\(index).png")
            }
            let urls = (0..<24).map { setup.url("/l\($0).png").absoluteString }
            // Four processes at once, three downloads each at a time, into a cache that holds ten of the 24.
            let limit = 10 * size
            try await withThrowingTaskGroup(of: ImgviewProcess.Result.self) { group in
                for part in 0..<4 {
                    group.addTask {
                        try await setup.run(
                            ["get"] + urls[(part * 6)..<(part * 6 + 6)]
                                + [
                                    "-O", setup.folder.appendingPathComponent("out").path, "--jobs", "3", "--quiet", "--cache-size",
                                    "\(limit)",
                                ])
                    }
                }
                for try await result in group { #expect(result.status == 0, "\(result.stderr)") }
            }
            let disk = try setup.disk()
            #expect(disk.ledgerSize() == disk.measuredSize())
            #expect(disk.measuredSize() <= Int64(limit))
            #expect(disk.entries().count == 10)
            #expect(try await setup.run(["cache", "verify"]).status == 0)
        }
    }
}
