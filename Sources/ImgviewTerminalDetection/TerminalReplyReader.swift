/// How long the query listens, and what it makes of what arrived: the answers, read until DA1
/// (which every terminal sends last) or the deadline; past the deadline only an answer already
/// under way is waited for, while its bytes keep coming (`gap` apart at most) and for `grace` at
/// most, so a slow link's last bytes are read rather than left for the shell.
///
/// Pure: the caller reads the terminal and tells it the time, so every rule, the deadline's
/// included, is tested and fuzzed without a terminal or a clock.
public struct TerminalReplyReader: Sendable {
    /// The most the deadline is extended for an answer under way.
    public static let grace: Duration = .seconds(2)
    /// The longest pause within an answer under way past the deadline before it is given up.
    public static let gap: Duration = .milliseconds(250)

    public let deadline: Duration
    public private(set) var parser = TerminalReplyParser()
    /// When the last bytes came.
    private var lastArrival = Duration.zero

    public init(deadline: Duration) {
        self.deadline = deadline
    }

    /// Reads `bytes`, which came `elapsed` after the question went out.
    public mutating func receive(_ bytes: [UInt8], at elapsed: Duration) {
        guard !bytes.isEmpty else { return }
        parser.consume(bytes)
        lastArrival = elapsed
    }

    /// How much longer to wait for the terminal at `elapsed` since the question went out; nil
    /// once DA1 is in or the time is up.
    public func wait(at elapsed: Duration) -> Duration? {
        if parser.replies.isComplete { return nil }
        if elapsed < deadline { return deadline - elapsed }
        guard parser.isInsideSequence, !parser.isFlooded else { return nil }
        let end = min(deadline + Self.grace, max(deadline, lastArrival) + Self.gap)
        return elapsed < end ? end - elapsed : nil
    }

    /// What the query found, `elapsed` after the question went out.
    public mutating func finish(elapsed: Duration) -> TerminalQueryOutcome {
        let complete = parser.replies.isComplete
        let replies = parser.finish()
        return TerminalQueryOutcome(
            replies: replies, elapsed: elapsed, status: complete ? .answered : .timedOut, discardsPendingInput: parser.sawNoise)
    }
}
