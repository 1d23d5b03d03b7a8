import Foundation
import Testing

/// A large file is decoded from a mapping; cut short while it is read, it makes the reads past
/// its new end fault. `show` then says the file changed, exit 4, and does not crash
/// (DECISIONS.md, "A mapped file cut short reads as zeros and is reported").
@Suite("Files that change while they are read")
struct ChangingFileCommandTests {
    /// A 5000×5000 24-bit BMP of black, sparse on disk: 75 MB, over the size read whole.
    static func largeBMP(at url: URL) throws {
        let (width, height) = (5000, 5000)
        let row = (width * 3 + 3) / 4 * 4
        var header = Data("BM".utf8)
        func little<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        little(UInt32(54 + row * height))
        little(UInt32(0))
        little(UInt32(54))
        little(UInt32(40))
        little(Int32(width))
        little(Int32(height))
        little(UInt16(1))
        little(UInt16(24))
        little(UInt32(0))
        little(UInt32(row * height))
        for _ in 0..<4 { little(UInt32(0)) }
        try header.write(to: url)
        #expect(truncate(url.path, off_t(54 + row * height)) == 0)
    }

    @Test func aFileCutShortWhileItIsDecodedIsReportedNotCrashedOn() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("large.bmp")
        try Self.largeBMP(at: file)
        let (process, stdout, stderr) = try ImgviewProcess.start(["show", "--size", "80x24", file.path])
        async let output = readToEnd(stdout)
        async let errors = readToEnd(stderr)
        // Cut it short once the decoder has it mapped, well before a debug build has read it all.
        var mapped = false
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline {
            // Read to its end: a file of /proc says its size is 0.
            let handle = FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/maps")
            let maps = String(decoding: (try? handle?.readToEnd()) ?? Data(), as: UTF8.self)
            try? handle?.close()
            if maps.contains(file.path) {
                mapped = true
                break
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(truncate(file.path, 1000) == 0)
        if !mapped { process.terminate() }
        process.waitUntilExit()
        let (printed, said) = (await output, String(decoding: await errors, as: UTF8.self))
        #expect(mapped, "show ended before it mapped the file: \(said)")
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 4, "\(said)")
        #expect(said == "imgview: \(file.path): changed while it was read\n")
        #expect(printed.isEmpty)
    }
}
