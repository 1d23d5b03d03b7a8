import ImgviewSupport
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes the cache holds against its limit (bodies and their thumbnails), kept in `v1/size`
/// so that a store adds what it wrote instead of measuring every blob under the lock.
///
/// One line, `v1 = <bytes, 20 digits> <boot id>`, written in place under the cache's exclusive
/// lock. A writer marks it `?` before it changes anything and writes the new total after, so a
/// process killed in between leaves the mark; the boot id tells a ledger written before a crash or
/// reboot of the machine, whose last writes may never have reached the disk. A ledger that is
/// missing, unreadable, marked or from another boot is not trusted: the writer that finds it so
/// measures the files, as every store once did, and records what it found.
package final class CacheSizeLedger {
    static let name = "size"
    /// `v1 = ` + 20 digits + space + 36-character boot id + newline.
    static let recordLength = 63
    private static let stateOffset: off_t = 3

    private let file: FileDescriptor
    /// The total recorded, when it can be trusted; read once, when opened.
    let total: Int64?

    /// Opens (creating if needed) the ledger in `folder`, the cache's `v1`, under the exclusive
    /// lock; only to read it (nothing created) with `readOnly`.
    init?(in folder: Directory, readOnly: Bool = false) {
        let opened =
            readOnly ? try? folder.openRegular(Self.name, flags: O_RDONLY) : try? folder.openOwnFile(Self.name, flags: O_RDWR | O_CREAT)
        guard let file = opened else { return nil }
        self.file = file
        total = Self.trustedTotal(in: file)
    }

    deinit {
        try? file.close()
    }

    /// Marks the ledger as being changed: until `record` follows, no writer trusts it.
    func markChanging() {
        guard total != nil else { return }  // already untrusted: nothing to mark
        _ = pwrite(file.rawValue, "?", 1, Self.stateOffset)
    }

    /// Records `total`, the cache's bytes now, measured or kept up to date under the lock.
    func record(_ total: Int64) {
        guard let record = Self.record(total) else { return }
        let written = record.withUnsafeBytes { pwrite(file.rawValue, $0.baseAddress, $0.count, 0) }
        if written == record.count, (try? Stat(file))?.size != Int64(record.count) { _ = ftruncate(file.rawValue, off_t(record.count)) }
    }

    /// The line recording `total` on this boot; nil when the machine's boot id cannot be read (then
    /// no ledger is ever trusted, and every writer measures).
    package static func record(_ total: Int64) -> [UInt8]? {
        guard let bootID, total >= 0 else { return nil }
        let digits = String(total)
        let line = "v1 = " + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + " " + bootID + "\n"
        let bytes = Array(line.utf8)
        return bytes.count == recordLength ? bytes : nil
    }

    /// The total in `file` when it is whole, not marked, and of this boot.
    private static func trustedTotal(in file: FileDescriptor) -> Int64? {
        guard let status = try? Stat(file), status.size == Int64(recordLength) else { return nil }
        var bytes = [UInt8](repeating: 0, count: recordLength)
        let count = bytes.withUnsafeMutableBytes { pread(file.rawValue, $0.baseAddress, recordLength, 0) }
        guard count == recordLength else { return nil }
        return parse(bytes)
    }

    /// The total a record says, when it is one of this boot, not marked as being changed.
    package static func parse(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count == recordLength, bytes.starts(with: Array("v1 = ".utf8)), bytes[25] == UInt8(ascii: " "),
            bytes[recordLength - 1] == UInt8(ascii: "\n"), let bootID,
            Array(bytes[26..<(recordLength - 1)]) == Array(bootID.utf8)
        else { return nil }
        let digits = bytes[5..<25]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let total = Int64(String(decoding: digits, as: UTF8.self)), total <= largestTrusted
        else { return nil }
        return total
    }

    /// The largest total trusted: 4 EiB, which no disk holds. Twenty digits say up to 2⁶³ − 1, and a
    /// store adds the bytes it wrote to the total: past this, that sum could pass what an Int64 holds.
    static let largestTrusted: Int64 = 1 << 62

    /// This boot of the machine (`/proc/sys/kernel/random/boot_id`); nil when it cannot be read.
    static let bootID: String? = {
        let descriptor = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 64) }
        guard count >= 36 else { return nil }
        let id = String(decoding: bytes[0..<36], as: UTF8.self)
        return id.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) } ? id : nil
    }()
}
