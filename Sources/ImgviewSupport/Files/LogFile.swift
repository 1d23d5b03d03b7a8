import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A diagnostic log a program appends lines to (`IMGVIEW_FRAME_LOG`, `IMGVIEW_INPUT_LOG`).
public final class LogFile {
    private let descriptor: FileDescriptor

    /// The file at `path`, created if missing and appended to; nil when it cannot be opened (the
    /// program then runs without it). A pipe or a terminal is fine too.
    public init?(path: String) {
        guard
            let descriptor = try? FileDescriptor.open(
                path, .writeOnly, options: [.create, .append, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        else { return nil }
        self.descriptor = descriptor
    }

    /// Writes `line` and a newline; a log that can no longer be written (a full disk, a closed
    /// pipe) is not worth stopping the program for.
    public func writeLine(_ line: String) {
        _ = try? descriptor.writeAll((line + "\n").utf8)
    }

    deinit {
        try? descriptor.close()
    }
}
