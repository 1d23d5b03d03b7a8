import Dispatch

/// Rows of an output split into bands that run at once, one a core: each band writes only its
/// own rows, so the bands need no lock between them.
enum RowBands {
    /// Runs `work` for each band of `0..<rows` (one band, on this thread, when `bands` is 1).
    static func run(rows: Int, bands: Int, _ work: @Sendable (Range<Int>) -> Void) {
        guard bands > 1 else { return work(0..<rows) }
        DispatchQueue.concurrentPerform(iterations: bands) { index in work((index * rows / bands)..<((index + 1) * rows / bands)) }
    }
}
