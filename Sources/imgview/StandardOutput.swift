import Foundation
import ImgviewProcess

/// Writes results to stdout directly, so nothing waits in a buffer when the process exits or is piped.
enum StandardOutput {
    static func write(_ text: String) {
        write(Data(text.utf8))
    }

    /// Writes all of `data`; when the reader has gone (`imgview list | head -1`), ends the process
    /// the way `cat` ends there: quietly, by SIGPIPE.
    ///
    /// `FileHandle.write` treats a closed pipe as a fatal error, and SIGPIPE itself is ignored in
    /// a Swift process, so without this a user saw a crash report.
    static func write(_ data: Data) {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EINTR {
                    continue
                } else if errno == EPIPE {
                    endByBrokenPipe()
                } else {
                    return  // stdout is unusable (a full disk, say): nothing more can be said there
                }
            }
        }
    }

    /// Ends the process as `cat` ends when its reader has gone: quietly, by SIGPIPE.
    static func endByBrokenPipe() -> Never {
        ProcessSignals.endByBrokenPipe()
    }
}
