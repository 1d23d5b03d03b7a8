import Foundation
import Testing

/// `make install` and `make uninstall` (scripts/install.sh), into a temporary PREFIX, with the
/// binaries under test: everything lands where the man page, shells and `imgview` itself look,
/// the installed `imgview` serves its demo from outside the repository, and uninstalling
/// leaves nothing behind.
@Suite("make install and uninstall")
struct InstallTests {
    static let installed = [
        "bin/imgview", "libexec/imgview/imgview-server", "share/man/man1/imgview.1", "share/bash-completion/completions/imgview",
        "share/zsh/site-functions/_imgview", "share/fish/vendor_completions.d/imgview.fish",
        "share/imgview/Assets/demo-catalog.json", "share/imgview/Assets/images/01_grace_hopper.jpg",
    ]

    func script(_ action: String, _ prefix: URL) async throws -> ImgviewProcess.Result {
        try await ImgviewProcess.run(
            [ImgviewProcess.repositoryRoot.appendingPathComponent("scripts/install.sh").path, action, prefix.path],
            executable: URL(fileURLWithPath: "/bin/bash"),
            environment: ["BIN": ImgviewProcess.binary.deletingLastPathComponent().path], directory: ImgviewProcess.repositoryRoot,
            timeout: .seconds(900))
    }

    @Test func installsEverythingAndUninstallsItAll() async throws {
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let prefix = root.appendingPathComponent("prefix")
        let install = try await script("install", prefix)
        #expect(install.status == 0, "\(install.stderr)")
        for file in Self.installed {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(file).path), "\(file) was not installed")
        }

        // The man page is the one `--help` describes: every subcommand, from the same definitions.
        let manual = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/imgview.1"), encoding: .utf8)
        #expect(manual.contains(".Nm imgview"))
        for subcommand in ["browse", "demo", "list", "get", "show", "info", "terminal", "serve", "cache"] {
            #expect(manual.contains(subcommand), "the man page does not mention \(subcommand)")
        }
        let bash = try String(contentsOf: prefix.appendingPathComponent("share/bash-completion/completions/imgview"), encoding: .utf8)
        #expect(bash.contains("complete") && bash.contains("imgview"))

        // The installed program runs from outside the repository: its server from libexec, the
        // demo's images from share.
        let outside = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let imgview = prefix.appendingPathComponent("bin/imgview")
        let version = try await ImgviewProcess.run(["--version"], executable: imgview, directory: outside)
        #expect(version.status == 0)
        let demo = try await ImgviewProcess.run(
            ["demo", "--report"], executable: imgview, environment: ["TERM": "dumb", "COLORTERM": ""], directory: outside)
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("The server saw 6 image requests for 12 fetches"))

        let uninstall = try await script("uninstall", prefix)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let left = FileManager.default.enumerator(atPath: prefix.path)?.compactMap { $0 as? String }.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: prefix.appendingPathComponent(name).path, isDirectory: &isFolder)
                && !isFolder.boolValue
        }
        #expect(left == [], "left behind: \(left ?? [])")
        #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/imgview").path))
        #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent("libexec/imgview").path))
    }
}
