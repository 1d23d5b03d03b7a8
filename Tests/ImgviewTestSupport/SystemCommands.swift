import Foundation

/// Commands tests run as root to make what a user meets: a read-only folder (`chattr +i`, which
/// root cannot write past, where `chmod` does not stop it) and another volume (a tmpfs mounted
/// in a temporary folder, then made read-only).
public enum SystemCommands {
    /// Runs `program` with `arguments`; throws when it fails.
    public static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(program) \(arguments) failed"])
        }
    }

    /// Whether this process may make a folder immutable here.
    public static func canUseChattr() -> Bool {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr"),
            let probe = try? temporaryFolder(prefix: "imgview-chattr")
        else { return false }
        defer {
            try? run("/usr/bin/chattr", ["-i", probe.path])
            try? FileManager.default.removeItem(at: probe)
        }
        return (try? run("/usr/bin/chattr", ["+i", probe.path])) != nil
    }

    /// Whether this process may mount a tmpfs.
    public static func canMount() -> Bool {
        guard getuid() == 0, let probe = try? temporaryFolder(prefix: "imgview-mount") else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path])) != nil else { return false }
        try? run("/bin/umount", [probe.path])
        return true
    }
}
