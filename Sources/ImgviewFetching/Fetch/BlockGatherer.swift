/// Gathers a body's chunks into whole blocks, so that whoever stores them writes (and hashes) a
/// block at a time instead of a chunk at a time.
///
/// The gatherer does not own blocks: `take` supplies an empty one when needed, and each full one
/// is handed to `hand` with its byte count, after which the gatherer forgets it.
struct BlockGatherer {
    /// The block being filled, if any.
    private(set) var block: UnsafeMutableRawBufferPointer?
    /// How many bytes of `block` are filled.
    private(set) var count = 0

    /// Copies `bytes` into blocks, handing on each that fills.
    mutating func append(
        _ bytes: UnsafeRawBufferPointer, take: () -> UnsafeMutableRawBufferPointer,
        hand: (UnsafeMutableRawBufferPointer, Int) throws -> Void
    ) rethrows {
        var offset = 0
        while offset < bytes.count {
            let block = self.block ?? take()
            self.block = block
            let copied = min(bytes.count - offset, block.count - count)
            UnsafeMutableRawBufferPointer(rebasing: block[count..<(count + copied)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + copied)]))
            count += copied
            offset += copied
            if count == block.count { try handOn(hand) }
        }
    }

    /// Hands on the part-filled block, if there is one.
    mutating func handOn(_ hand: (UnsafeMutableRawBufferPointer, Int) throws -> Void) rethrows {
        guard let block else { return }
        let filled = count
        self.block = nil
        count = 0
        try hand(block, filled)
    }

    /// Forgets the block being filled without handing it on (the body starts over); returns it.
    mutating func drop() -> UnsafeMutableRawBufferPointer? {
        defer {
            block = nil
            count = 0
        }
        return block
    }
}
