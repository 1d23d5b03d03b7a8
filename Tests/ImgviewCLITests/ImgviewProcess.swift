import Foundation

/// Runs the built `imgview` binary and collects what it printed and how it exited.
///
/// Under `swift test` on Linux, `CommandLine.arguments[0]` is the test bundle inside
/// `.build/<configuration>/`, where the `imgview` executable also lies; the package path
/// from `#filePath` is the fallback.
struct ImgviewProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let executable: URL = {
        let besideBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("imgview")
        if FileManager.default.isExecutableFile(atPath: besideBundle.path) { return besideBundle }
        let bundleDirectory = Bundle.main.bundleURL.appendingPathComponent("imgview")
        if FileManager.default.isExecutableFile(atPath: bundleDirectory.path) { return bundleDirectory }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/imgview")
    }()

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["IMGVIEW_CATALOG"] = nil
        merged["NO_COLOR"] = nil
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so a large preview cannot fill the pipe and block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
