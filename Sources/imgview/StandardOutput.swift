import ImgviewProcess
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

/// Writes results to stdout directly, so nothing waits in a buffer when the process exits or is piped.
enum StandardOutput {
    static func write(_ text: String) {
        // From the string's own storage: `Data(text.utf8)` asks the runtime whether the view is
        // contiguous bytes, a lookup that scans every conformance of the binary the first time.
        var text = text
        text.withUTF8 { bytes in ending { _ = try FileDescriptor.standardOutput.writeAll(UnsafeRawBufferPointer(bytes)) } }
    }

    /// Writes each of `parts` in turn, without joining them first: a pixel preview is megabytes,
    /// and a joined copy of it (and a `Data` of that) was as large again at the process's peak.
    static func write(parts: [UInt8]...) {
        for part in parts where !part.isEmpty {
            ending { _ = try FileDescriptor.standardOutput.writeAll(part) }
        }
    }

    /// Writes all of `data`; when the reader has gone (`imgview list | head -1`), ends the process
    /// the way `cat` ends there: quietly, by SIGPIPE (which a Swift process ignores, so a write
    /// fails with EPIPE instead).
    static func write(_ data: Data) {
        ending { _ = try FileDescriptor.standardOutput.writeAll(data) }
    }

    /// Runs `write`; a failure ends the process as `write(_:)` says.
    private static func ending(_ write: () throws -> Void) {
        do {
            try write()
        } catch Errno.brokenPipe {
            endByBrokenPipe()
        } catch {
            endByFailedWrite((error as? Errno)?.rawValue ?? EIO)
        }
    }

    /// Ends the process when standard output cannot be written (a full disk under a redirection,
    /// say): one line, and exit 11, as every local write that fails ends. What was to be printed
    /// cannot be, so nothing is gained by going on.
    static func endByFailedWrite(_ code: Int32) -> Never {
        StandardError.print("imgview: standard output: cannot write: \(String(cString: strerror(code)))")
        ProcessSignals.exit(status: ExitStatus.storage.rawValue)
    }

    /// Ends the process as `cat` ends when its reader has gone: quietly, by SIGPIPE.
    static func endByBrokenPipe() -> Never {
        ProcessSignals.endByBrokenPipe()
    }
}
