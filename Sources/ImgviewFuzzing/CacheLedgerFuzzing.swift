import ImgviewFetching

/// The cache's size ledger as found on disk: only a whole, unmarked record of this boot is
/// trusted, and a total it trusts is written back as exactly the bytes it came from.
enum CacheLedgerFuzzing {
    static func run(_ bytes: [UInt8]) {
        guard let total = CacheSizeLedger.parse(bytes) else { return }
        precondition(total >= 0, "a negative total was trusted")
        precondition(CacheSizeLedger.record(total) == bytes, "a trusted record does not read back as itself")
    }
}
