import ImgviewProcess
import ImgviewTerminalDetection

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
    private let descriptor: Int32
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
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .missing }
        guard tcgetpgrp(descriptor) == getpgrp() else {
            Glibc.close(descriptor)
            throw .background
        }
        guard tcgetattr(descriptor, &savedModes) == 0 else {
            Glibc.close(descriptor)
            throw .unusable
        }
        restoration = ProcessSignals.restoring(TerminalRestoration(modes: (descriptor, savedModes)))
        var modes = savedModes
        modes.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &modes.c_cc) { characters in
            characters[Int(VMIN)] = 0
            characters[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSANOW, &modes) == 0 else {
            restoration.end()
            Glibc.close(descriptor)
            throw .unusable
        }
        self.descriptor = descriptor
    }

    deinit {
        tcsetattr(descriptor, TCSANOW, &savedModes)
        restoration.end()
        Glibc.close(descriptor)
    }

    /// The size in cells and pixels the kernel knows (pixels are 0 where the terminal did not set them).
    public var kernelSize: (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row), Int(size.ws_xpixel), Int(size.ws_ypixel))
    }

    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    public func read(timeout: Duration) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return [] }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return [] }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return [] }
            return Array(buffer[0..<count])
        }
    }

    public func discardInput() {
        tcflush(descriptor, TCIFLUSH)
    }

    /// Inserts `bytes` into the terminal's input (TIOCSTI) while echo is still off, so they wait
    /// there for the shell without appearing on screen now; kernels that forbid it lose them, as
    /// typeahead would be.
    public func giveBack(_ bytes: [UInt8]) {
        for var byte in bytes where ioctl(descriptor, UInt(TIOCSTI), &byte) != 0 { return }
    }
}
