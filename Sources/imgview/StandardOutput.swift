import ImgviewProcess
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
        write(Data(text.utf8))
    }

    /// Writes all of `data`; when the reader has gone (`imgview list | head -1`), ends the process
    /// the way `cat` ends there: quietly, by SIGPIPE (which a Swift process ignores, so a write
    /// fails with EPIPE instead).
    static func write(_ data: Data) {
        do {
            _ = try FileDescriptor.standardOutput.writeAll(data)
        } catch Errno.brokenPipe {
            endByBrokenPipe()
        } catch {
            return  // stdout is unusable (a full disk, say): nothing more can be said there
        }
    }

    /// Ends the process as `cat` ends when its reader has gone: quietly, by SIGPIPE.
    static func endByBrokenPipe() -> Never {
        ProcessSignals.endByBrokenPipe()
    }
}
