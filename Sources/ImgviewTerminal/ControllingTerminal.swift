import ImgviewProcess
import ImgviewSupport
import ImgviewTerminalDetection
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The process's controlling terminal (`/dev/tty`), opened to ask it questions.
///
/// While open, input is unbuffered and not echoed, so answers arrive at once and never show on
/// screen; `close` puts the modes back without discarding input (`TCSANOW`, not `TCSAFLUSH`),
/// so keys typed meanwhile are not lost.
public final class ControllingTerminal: TerminalChannel {
    private let terminal: FileDescriptor
    private var savedModes = termios()
    /// The modes put back should the process end while the terminal is asked.
    private let restoration: RestorationHandle

    /// Why the terminal cannot be asked; the text is what `imgview terminal` reports.
    public enum Unavailable: String, Error {
        case missing = "no controlling terminal"
        case background = "running in the background"
        case unusable = "the terminal's modes cannot be set"
    }

    /// Opens the controlling terminal. Fails without one (a daemon, a CI job), and in the
    /// background (`imgview show x &`), where changing the terminal's modes or writing to it
    /// would stop the job (SIGTTOU) and the answers would go to the foreground job.
    public init() throws(Unavailable) {
        let options: FileDescriptor.OpenOptions = [.closeOnExec, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)]
        guard let terminal = try? FileDescriptor.open("/dev/tty", .readWrite, options: options) else { throw .missing }
        guard tcgetpgrp(terminal.rawValue) == getpgrp() else {
            try? terminal.close()
            throw .background
        }
        guard tcgetattr(terminal.rawValue, &savedModes) == 0 else {
            try? terminal.close()
            throw .unusable
        }
        restoration = ProcessSignals.restoring(TerminalRestoration(modes: (terminal.rawValue, savedModes)))
        var modes = savedModes
        modes.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &modes.c_cc) { characters in
            characters[Int(VMIN)] = 0
            characters[Int(VTIME)] = 0
        }
        guard tcsetattr(terminal.rawValue, TCSANOW, &modes) == 0 else {
            restoration.end()
            try? terminal.close()
            throw .unusable
        }
        self.terminal = terminal
    }

    deinit {
        tcsetattr(terminal.rawValue, TCSANOW, &savedModes)
        restoration.end()
        try? terminal.close()
    }

    /// The size in cells and pixels the kernel knows (pixels are 0 where the terminal did not set them).
    public var kernelSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? {
        var size = winsize()
        guard ioctl(terminal.rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row), Int(size.ws_xpixel), Int(size.ws_ypixel))
    }

    public func write(_ bytes: [UInt8]) -> Bool {
        (try? terminal.writeAll(bytes)) != nil
    }

    public func read(timeout: Duration) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            var poller = pollfd(fd: terminal.rawValue, events: Int16(POLLIN), revents: 0)
            // The wait is worked out on every try, so an interrupted one goes on to the same deadline.
            let ready = try? Errno.retryingOnInterrupt { () -> Int32 in
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { return 0 }
                let (seconds, attoseconds) = remaining.components
                return poll(&poller, 1, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
            }
            guard let ready, ready > 0 else { return [] }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try terminal.read(into: $0) }
            } catch {
                // Nothing there after all: wait again, to the same deadline.
                if (error as? Errno)?.isWouldBlock == true { continue }
                return []
            }
            guard count > 0 else { return [] }
            return Array(buffer[0..<count])
        }
    }

    public func discardInput() {
        tcflush(terminal.rawValue, TCIFLUSH)
    }

    /// Inserts `bytes` into the terminal's input (TIOCSTI) while echo is still off, so they wait
    /// there for the shell without appearing on screen now; kernels that forbid it lose them, as
    /// typeahead would be.
    public func giveBack(_ bytes: [UInt8]) {
        for var byte in bytes where ioctl(terminal.rawValue, UInt(TIOCSTI), &byte) != 0 { return }
    }
}
