import Foundation
import ImgviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ImgviewProcess {
    /// Runs `imgview` with stdout on a pseudo-terminal `columns` wide, as a user at a terminal sees it.
    ///
    /// stderr stays a pipe. The terminal translates `\n` to `\r\n`; the result has plain `\n` again.
    static func runOnTerminal(_ arguments: [String], columns: Int, environment: [String: String] = [:]) async throws -> Result {
        // posix_openpt and friends are hidden from Swift's Glibc module; these are the ioctls they
        // wrap, TIOCSPTLCK and TIOCGPTN (the generic _IOW/_IOR encoding of x86-64 and arm64).
        let (lockRequest, numberRequest): (UInt, UInt) = (0x4004_5431, 0x8004_5430)
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, lockRequest, &unlock) == 0, ioctl(master, numberRequest, &number) == 0 else {
            throw POSIXError(.ENOTTY)
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        var size = winsize(ws_row: 40, ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)

        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ImgviewProcess.environment(environment)
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        let stderr = Pipe()
        process.standardOutput = terminal
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        close(slave)
        async let err = readToEnd(stderr)
        // Read until the child's side closes (EIO on Linux), on a thread of its own.
        let output = try await offPool { () -> Data in
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                data.append(contentsOf: buffer[0..<count])
            }
            close(master)
            return data
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"),
            stderr: String(decoding: await err, as: UTF8.self))
    }
}
