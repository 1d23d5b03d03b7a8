import Foundation
import ImgviewServer
import Testing

@testable import ImgviewSupport

/// What imgview leaves on this machine: the cache folder and the files asked for, nothing else;
/// and what it says when the disk is full.
@Suite("Nothing written where it should not be")
struct LocalFootprintTests {
    static let hopper = ImgviewProcess.repositoryRoot.appendingPathComponent("Assets/images/01_grace_hopper.jpg")

    /// Every file and folder under `root`, relative to it, sorted.
    static func tree(_ root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { $0 as? String }.sorted()
    }

    /// With an empty HOME (and TMPDIR), the commands a user runs first leave only `~/.cache/imgview`
    /// in HOME, nothing in TMPDIR, and in the working folder only what `get` was asked to write.
    /// URLSession used to leave `~/.cache/org.swift.foundation.URLCache/imgview` and `~/.local/share/…`.
    @Test(arguments: HTTPClients.built)
    func anEmptyHomeGetsOnlyTheCacheFolder(client: String) async throws {
        let server = try await LoopbackServer.start()
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let (home, temporary, work) = (
            root.appendingPathComponent("home"), root.appendingPathComponent("tmp"), root.appendingPathComponent("work")
        )
        for folder in [home, temporary, work] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try await stopping(server) {
            server.publish(.data(try Data(contentsOf: Self.hopper), contentType: "image/jpeg"), at: "/hopper.jpg")
            try Data("{\"images\": [{\"name\": \"hopper\", \"url\": \"\(server.url(for: "/hopper.jpg"))\"}]}".utf8)
                .write(to: root.appendingPathComponent("catalog.json"))
            server.publish(
                .data(try Data(contentsOf: root.appendingPathComponent("catalog.json")), contentType: "application/json"),
                at: "/catalog.json")
            let environment = [
                "HOME": home.path, "TMPDIR": temporary.path, "XDG_CACHE_HOME": "", "IMGVIEW_CACHE_DIR": "", "IMGVIEW_HTTP": client,
            ]
            let runs: [[String]] = [
                ["list"], ["--catalog", server.url(for: "/catalog.json").absoluteString, "list", "--json"],
                ["--catalog", root.appendingPathComponent("catalog.json").path, "get", "hopper"],
                ["show", server.url(for: "/hopper.jpg").absoluteString, "--size", "20x10"],
                ["info", Self.hopper.path], ["cache", "ls"], ["cache", "stats"], ["demo", "--report", "--size", "10x5"],
            ]
            for arguments in runs {
                let result = try await ImgviewProcess.run(arguments, environment: environment, directory: work)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
            }
            let outsideCache = Self.tree(home).filter { $0 != ".cache" && $0 != ".cache/imgview" && !$0.hasPrefix(".cache/imgview/") }
            #expect(outsideCache.isEmpty, "HOME holds \(outsideCache)")
            #expect(Self.tree(home).contains(".cache/imgview/v1/entries"))
            #expect(Self.tree(temporary).isEmpty, "TMPDIR holds \(Self.tree(temporary))")
            #expect(Self.tree(work) == ["hopper.jpg"])
        }
    }

    /// A cache on a file system that fills up mid-download: one line naming the disk's problem and
    /// where, exit 11, one request (a full disk is not the network's fault, so no retry), nothing left.
    ///
    /// The small file system is a 512 kB tmpfs mounted in a private mount namespace (`unshare`), so
    /// it vanishes with the command, whatever happens to the test.
    @Test(.enabled(if: LocalFootprintTests.canMountTmpfs, "needs unshare and a tmpfs mount (root, or user namespaces)"))
    func aFullDiskIsALocalFailureNeverRetried() async throws {
        let server = try await LoopbackServer.start()
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let mountPoint = root.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        try await stopping(server) {
            // A 2 MB body that sniffs as a JPEG: `get` keeps it without decoding.
            var body = try Data(contentsOf: Self.hopper)
            body.append(Data(count: 2_000_000))
            server.publish(.data(body, contentType: "image/jpeg"), at: "/big.jpg")
            let url = server.url(for: "/big.jpg").absoluteString
            let script = """
                mount -t tmpfs -o size=512k imgview-test "$1" || exit 99
                IMGVIEW_CACHE_DIR="$1/cache" "$2" get "$3" -o "$4/out.jpg"
                status=$?
                echo "left behind: $(ls -A "$1/cache/v1/tmp" | wc -l)"
                exit $status
                """
            let result = try await Self.runUnshared(
                script, arguments: [mountPoint.path, ImgviewProcess.binary.path, url, root.path], directory: root)
            #expect(result.status == ExitStatus.storage.rawValue, "\(result.stderr)")
            #expect(
                result.errorLine
                    == "imgview: \(url): cannot write the download: No space left on device (in \(mountPoint.path)/cache/v1/tmp)")
            #expect(result.stdout == "left behind: 0\n")
            #expect(server.requests(for: "/big.jpg").count == 1)
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("out.jpg").path))
        }
    }

    /// An output on a file system that fills up: exit 11, as every local write that fails (it was
    /// 8, the code for an output refused), one line naming the file and the reason, nothing left.
    @Test(.enabled(if: LocalFootprintTests.canMountTmpfs, "needs unshare and a tmpfs mount (root, or user namespaces)"))
    func aFullDiskUnderAnOutputIsALocalFailure() async throws {
        let server = try await LoopbackServer.start()
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let mountPoint = root.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        try await stopping(server) {
            var body = try Data(contentsOf: Self.hopper)
            body.append(Data(count: 2_000_000))
            server.publish(.data(body, contentType: "image/jpeg"), at: "/big.jpg")
            let url = server.url(for: "/big.jpg").absoluteString
            let script = """
                mount -t tmpfs -o size=512k imgview-test "$1" || exit 99
                IMGVIEW_CACHE_DIR="$4/cache" "$2" get "$3" -o "$1/out.jpg"
                status=$?
                echo "left behind: $(ls -A "$1" | wc -l)"
                exit $status
                """
            let result = try await Self.runUnshared(
                script, arguments: [mountPoint.path, ImgviewProcess.binary.path, url, root.path], directory: root)
            #expect(result.status == ExitStatus.storage.rawValue, "\(result.stderr)")
            #expect(result.errorLine.hasPrefix("imgview: \(mountPoint.path)/out.jpg: cannot "), "\(result.errorLine)")
            #expect(result.errorLine.hasSuffix(": No space left on device"), "\(result.errorLine)")
            #expect(result.stdout == "left behind: 0\n")
        }
    }

    /// Standard output on a full disk (`> /dev/full`): exit 11 and one line, for the bytes of
    /// `get -o -` (exit 1 before) and for text (`show`, `info` and `list` exited 0, having said nothing).
    @Test(arguments: [["get", "$URL", "-o", "-"], ["show", "$URL", "--mode", "ascii", "--size", "20x10"], ["info", "$URL"], ["list"]])
    func aFullStandardOutputIsALocalFailure(arguments: [String]) async throws {
        let server = try await LoopbackServer.start()
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try await stopping(server) {
            server.publish(.data(try Data(contentsOf: Self.hopper), contentType: "image/jpeg"), at: "/hopper.jpg")
            let url = server.url(for: "/hopper.jpg").absoluteString
            let command = arguments.map { $0 == "$URL" ? url : $0 }
            let result = try await ImgviewProcess.run(
                ["-c", "exec \"$0\" \"$@\" > /dev/full", ImgviewProcess.binary.path] + command, executable: URL(fileURLWithPath: "/bin/sh"),
                environment: ["IMGVIEW_CACHE_DIR": root.appendingPathComponent("cache").path], directory: root)
            #expect(result.status == ExitStatus.storage.rawValue, "\(command): \(result.stderr)")
            #expect(result.errorLine == "imgview: standard output: cannot write: No space left on device", "\(command)")
        }
    }

    /// Whether `unshare` can give a process a private mount namespace with a tmpfs in it.
    static let canMountTmpfs: Bool = {
        guard let result = try? runUnsharedSync("mount -t tmpfs -o size=64k imgview-probe \"$1\"", arguments: [NSTemporaryDirectory()])
        else {
            return false
        }
        return result == 0
    }()

    /// `unshare` with a private mount namespace (and, when not root, a user namespace mapping us to root).
    static func unshareArguments() -> [String] {
        getuid() == 0 ? ["--mount", "--propagation", "private"] : ["--user", "--map-root-user", "--mount", "--propagation", "private"]
    }

    static func runUnsharedSync(_ script: String, arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = unshareArguments() + ["sh", "-c", script, "sh"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func runUnshared(_ script: String, arguments: [String], directory: URL) async throws -> ImgviewProcess.Result {
        try await ImgviewProcess.run(
            unshareArguments() + ["sh", "-c", script, "sh"] + arguments, executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            directory: directory)
    }
}
