import Foundation
import Testing

/// An image declaring far more pixels than memory holds is decoded in bounded memory or refused.
@Suite("Huge images")
struct HugeImageTests {
    /// A PNG declaring 100000×100000 grey pixels, with `rows` rows of data (stored deflate blocks,
    /// the stream left unfinished): what a hostile server sends in a few megabytes.
    static func hugePNG(rows: Int) -> Data {
        func bigEndian(_ value: UInt32) -> [UInt8] {
            [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let named: [UInt8] = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + named + bigEndian(crc32(named))
        }
        let side: UInt32 = 100_000
        let size: [UInt8] = bigEndian(side) + bigEndian(side)
        var stream: [UInt8] = [0x78, 0x01]
        var raw: [UInt8] = []
        for _ in 0..<rows { raw += [0] + [UInt8](repeating: 0x80, count: Int(side)) }
        for start in stride(from: 0, to: raw.count, by: 65535) {
            let block = raw[start..<min(raw.count, start + 65535)]
            let length = UInt16(block.count)
            let header: [UInt8] = [0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            stream += header + block
        }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        return Data(signature + chunk("IHDR", size + [8, 0, 0, 0, 0]) + chunk("IDAT", stream))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// It used to ask for 40 GB at once and abort; under a 3 GB address-space limit it must not need it.
    /// The sanitizers reserve terabytes of shadow address space, so under one (scripts/sanitize.sh
    /// sets ASAN_OPTIONS or TSAN_OPTIONS) the same 3 GB bound is given to its allocator instead.
    @Test func a100000SquarePNGAtTenThousandMegapixelsDecodesInBoundedMemory() async throws {
        let variables = ProcessInfo.processInfo.environment
        let sanitizer = ["ASAN_OPTIONS", "TSAN_OPTIONS"].first { variables[$0] != nil }
        let addressLimit = sanitizer == nil ? "ulimit -v 3000000 && " : ""
        let environment = sanitizer.map { [$0: variables[$0]! + ":max_allocation_size_mb=3000"] } ?? [:]
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("huge.png")
        try Self.hugePNG(rows: 40).write(to: file)
        let result = try await ImgviewProcess.run(
            [
                "-c", addressLimit + "exec \"$0\" \"$@\"", ImgviewProcess.binary.path, "show", file.path, "--max-megapixels", "10000",
                "--size", "40x12", "--mode", "ascii",
            ],
            executable: URL(fileURLWithPath: "/bin/sh"), environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("damaged or truncated PNG"))
        #expect(result.stdout.split(separator: "\n").count >= 1)

        let refused = try await ImgviewProcess.run(["show", file.path, "--size", "40x12"])
        #expect(refused.status == 7, "the default limit refuses it from the header: \(refused.stderr)")
    }
}
