import Foundation
import ImgviewTestSupport
import Testing

@testable import ImgviewSupport

/// The freedesktop.org trash: where a file goes, its `.trashinfo`, putting it back, and files
/// that cannot go (left where they are, nothing half-done). Tests run as root, which `chmod`
/// does not stop: a read-only folder is `chattr +i`, another volume is a tmpfs mounted here.
@Suite("TrashCan", .serialized)
struct TrashCanTests {
    /// A folder with a data home (for the home trash) and a pictures folder in it.
    func withFolders(_ body: (_ home: URL, _ pictures: URL, _ trash: TrashCan) throws -> Void) throws {
        let root = try temporaryFolder(prefix: "imgview-trash")
        defer { try? FileManager.default.removeItem(at: root) }
        let home = root.appendingPathComponent("data")
        let pictures = root.appendingPathComponent("pics")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        try body(home, pictures, TrashCan(environment: ["XDG_DATA_HOME": home.path, "HOME": root.path]))
    }

    @Test func aFileGoesToTheHomeTrashWithItsInfoAndComesBack() throws {
        try withFolders { home, pictures, trash in
            let file = pictures.appendingPathComponent("café 1;x.png")
            try Data("one".utf8).write(to: file)
            let moved = try trash.trash(file.path, now: 1_700_000_000)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(moved.trashedPath == home.path + "/Trash/files/café 1;x.png")
            let info = try String(contentsOfFile: moved.infoPath, encoding: .utf8)
            let escaped = pictures.path.replacingOccurrences(of: " ", with: "%20")
            #expect(info.hasPrefix("[Trash Info]\nPath=\(escaped)/caf%C3%A9%201%3Bx.png\nDeletionDate="))
            #expect(info.range(of: #"DeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n$"#, options: .regularExpression) != nil)
            let mode = try FileManager.default.attributesOfItem(atPath: home.path + "/Trash/files")[.posixPermissions] as? Int
            #expect(mode == 0o700)
            // The same name again: another name in the trash, never over the first.
            try Data("two".utf8).write(to: file)
            let second = try trash.trash(file.path)
            #expect(second.trashedPath.hasSuffix("/files/café 1;x.2.png"))
            #expect(second.infoPath.hasSuffix("/info/café 1;x.2.png.trashinfo"))
            try trash.restore(second)
            #expect(try String(contentsOf: file, encoding: .utf8) == "two")
            #expect(!FileManager.default.fileExists(atPath: second.infoPath))
            // Back where it was only while nothing has taken its place.
            #expect(throws: TrashError(path: file.path, reason: "another file is there now")) { try trash.restore(moved) }
            #expect(FileManager.default.fileExists(atPath: moved.trashedPath))
        }
    }

    @Test func aFileThatIsGoneSaysSo() throws {
        try withFolders { _, pictures, trash in
            #expect(throws: TrashError(path: pictures.path + "/none.png", reason: "it is gone")) {
                try trash.trash(pictures.path + "/none.png")
            }
        }
    }

    @Test(.enabled(if: SystemCommands.canUseChattr(), "needs chattr on an ext4 or similar /tmp"))
    func aFileInAReadOnlyFolderStaysAndLeavesNoInfo() throws {
        try withFolders { home, pictures, trash in
            let file = pictures.appendingPathComponent("kept.png")
            try Data("kept".utf8).write(to: file)
            try SystemCommands.run("/usr/bin/chattr", ["+i", pictures.path])
            defer { try? SystemCommands.run("/usr/bin/chattr", ["-i", pictures.path]) }
            #expect(throws: TrashError(path: file.path, reason: "operation not permitted")) { try trash.trash(file.path) }
            #expect(FileManager.default.fileExists(atPath: file.path))
            let infos = (try? FileManager.default.contentsOfDirectory(atPath: home.path + "/Trash/info")) ?? []
            #expect(infos.isEmpty, "the .trashinfo written first is taken away again")
        }
    }

    @Test(.enabled(if: SystemCommands.canMount(), "needs to mount a tmpfs (root, with the right to mount)"))
    func aVolumeWithATrashOfItsOwnAndOneWithoutAny() throws {
        try withFolders { home, pictures, trash in
            let volume = pictures.appendingPathComponent("volume")
            try FileManager.default.createDirectory(at: volume, withIntermediateDirectories: true)
            try SystemCommands.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", volume.path])
            defer { try? SystemCommands.run("/bin/umount", [volume.path]) }
            // Another volume: its own .Trash-UID, the path relative to its top.
            try FileManager.default.createDirectory(at: volume.appendingPathComponent("sub"), withIntermediateDirectories: true)
            let file = volume.appendingPathComponent("sub/deep one.png")
            try Data("deep".utf8).write(to: file)
            let moved = try trash.trash(file.path)
            #expect(moved.trashedPath == volume.path + "/.Trash-\(getuid())/files/deep one.png")
            #expect(try String(contentsOfFile: moved.infoPath, encoding: .utf8).contains("\nPath=sub/deep%20one.png\n"))
            #expect(!FileManager.default.fileExists(atPath: home.path + "/Trash"), "nothing crossed into the home trash")
            try trash.restore(moved)
            #expect(FileManager.default.fileExists(atPath: file.path))
            // A shared .Trash with the sticky bit: this user's folder in it.
            try FileManager.default.createDirectory(at: volume.appendingPathComponent(".Trash"), withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: volume.path + "/.Trash")
            let shared = try trash.trash(file.path)
            #expect(shared.trashedPath == volume.path + "/.Trash/\(getuid())/files/deep one.png")
            try trash.restore(shared)
            // Read-only, without a trash: refused, the file where it was.
            try SystemCommands.run("/bin/rm", ["-rf", volume.path + "/.Trash", volume.path + "/.Trash-\(getuid())"])
            try SystemCommands.run("/bin/mount", ["-o", "remount,ro", volume.path])
            #expect(throws: TrashError(path: file.path, reason: "no trash can be made on \(volume.path) (read-only file system)")) {
                try trash.trash(file.path)
            }
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func namesAndDatesAreWrittenAsTheSpecSays() {
        #expect(TrashCan.numbered("a.png", 1) == "a.png")
        #expect(TrashCan.numbered("a.b.png", 3) == "a.b.3.png")
        #expect(TrashCan.numbered(".hidden", 2) == ".hidden.2")
        #expect(TrashCan.numbered("plain", 2) == "plain.2")
        #expect(TrashCan.escaped("/a b/ü~_-.x%") == "/a%20b/%C3%BC~_-.x%25")
        #expect(TrashCan.split("/a/b.png") == ("/a", "b.png"))
        #expect(TrashCan.split("/b.png") == ("/", "b.png"))
    }
}
