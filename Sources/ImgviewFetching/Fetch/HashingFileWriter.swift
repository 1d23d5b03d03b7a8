internal import Crypto
import Dispatch
import ImgviewSupport

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Appends blocks to a file and hashes them on a queue of its own, while the caller fills the next block.
///
/// A download's thread receives and writes; the queue hashes (SHA-256). Done one after the other
/// on one thread, a body took the sum of both; on two cores it takes about the longer of the two
/// (DECISIONS.md, "Hashing on a queue of its own"). At most `depth` blocks exist, so hashing slower than the network
/// makes `takeBlock()` wait, and the transfer with it, instead of memory growing.
final class HashingFileWriter: @unchecked Sendable {
    static let blockSize = 1 << 20

    private let file: TemporaryFile
    private let queue = DispatchQueue(label: "imgview.hashing-file-writer")
    private let depth: Int
    /// Guards `taken` and `spare`; signalled when a block comes back.
    private let condition = ThreadCondition()
    /// Blocks handed out by `takeBlock()` and not yet hashed.
    private var taken = 0
    private var spare: [UnsafeMutableRawBufferPointer] = []
    /// Touched on `queue` only.
    private var hasher = SHA256()
    /// Whether blocks are still hashed: a body the cache will not keep needs no digest. Set by the
    /// writing thread (under its owner's lock); the queue hashes only blocks given while it was true.
    private(set) var isHashing = true

    init(file: TemporaryFile, depth: Int = 3) {
        self.file = file
        self.depth = depth
    }

    deinit {
        // Every queued block holds a reference to self, so all of them are back by now.
        for block in spare { block.deallocate() }
    }

    /// An empty block of `blockSize` bytes to fill; waits while `depth` blocks are being hashed.
    func takeBlock() -> UnsafeMutableRawBufferPointer {
        condition.lock()
        defer { condition.unlock() }
        while taken >= depth { condition.wait() }
        taken += 1
        return spare.popLast() ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 64)
    }

    /// Writes the first `count` bytes of `block` after the blocks given before it, and hashes them
    /// on the queue, which then keeps the block for reuse.
    ///
    /// The write is done here and the hash there because the two take about as long per block
    /// (DECISIONS.md, "Hashing on a queue of its own"), so the receiving thread and the queue are
    /// equally busy.
    func write(_ block: UnsafeMutableRawBufferPointer, count: Int) throws {
        let bytes = UnsafeRawBufferPointer(rebasing: block[0..<count])
        do {
            try file.write(bytes)
        } catch {
            recycle(block)
            throw error
        }
        guard isHashing else {
            recycle(block)
            return
        }
        // The caller lets go of the block here; from now on only the queue touches it.
        nonisolated(unsafe) let block = block
        queue.async { [self] in
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: block[0..<count]))
            recycle(block)
        }
    }

    /// Hashes no more: the body will have no digest (`finish` returns nil). Blocks already given
    /// are still hashed by the queue, for nothing; the writes go on as before.
    func stopHashing() {
        isHashing = false
    }

    /// Hashes the first `count` bytes already in the file (a resumed download's), before any
    /// block written after them, handing each piece to `each` with its offset as it is read.
    /// Not hashing and with nobody to hand them to, it reads nothing.
    func absorbExisting(_ count: Int64, each: ((Int64, UnsafeRawBufferPointer) -> Void)?) throws {
        guard isHashing || each != nil else { return }
        var offset: Int64 = 0
        while offset < count {
            let filled = takeBlock()
            let wanted = Int(min(Int64(Self.blockSize), count - offset))
            let read = pread(file.descriptor, filled.baseAddress, wanted, off_t(offset))
            guard read > 0 else {
                let code = read < 0 ? errno : EIO
                recycle(filled)
                throw FileSystemError(operation: "read", path: file.url.path, errno: code)
            }
            each?(offset, UnsafeRawBufferPointer(rebasing: filled[0..<read]))
            offset += Int64(read)
            guard isHashing else {
                recycle(filled)
                continue
            }
            nonisolated(unsafe) let block = filled
            queue.async { [self] in
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: block[0..<read]))
                recycle(block)
            }
        }
    }

    private func recycle(_ block: UnsafeMutableRawBufferPointer) {
        condition.lock()
        spare.append(block)
        taken -= 1
        condition.signal()
        condition.unlock()
    }

    /// Waits for every block given so far to be hashed; returns the SHA-256 of all of them, or
    /// nil when hashing stopped part way.
    func finish() -> String? {
        let digest = queue.sync { hasher.finalize().hexString }
        return isHashing ? digest : nil
    }
}
