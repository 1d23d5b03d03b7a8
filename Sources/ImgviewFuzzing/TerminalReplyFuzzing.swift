import ImgviewTerminalDetection

/// Bytes arriving from a terminal while imgview waits for its answers: the answers themselves,
/// keys the user typed, and whatever a hostile or broken terminal sends.
///
/// The parser must lose nothing (every byte is an answer or handed back as input), must not
/// depend on how the bytes were split between reads, and must leave nothing the report prints
/// able to command the terminal.
enum TerminalReplyFuzzing {
    static func run(_ bytes: [UInt8]) {
        var whole = TerminalReplyParser()
        whole.consume(bytes)
        let replies = whole.finish()
        precondition(replies.unclaimed.count <= bytes.count, "more input handed back than arrived")

        // The same bytes a few at a time (as reads may deliver them) read the same.
        var pieces = TerminalReplyParser()
        var start = 0
        var step = 1
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            pieces.consume(Array(bytes[start..<end]))
            start = end
            step = step % 7 + 1
        }
        precondition(pieces.finish() == replies, "the answers depend on how the bytes were split")

        // Whatever was claimed or not, the report a user reads is safe to print.
        let outcome = TerminalQueryOutcome(replies: replies, elapsed: .milliseconds(2), status: replies.isComplete ? .answered : .timedOut)
        let profile = TerminalDetector(environment: TerminalEnvironment(["TERM": "xterm-256color"]), query: outcome).profile()
        for (label, value) in profile.reportLines { TerminalSafety.requireSafe(value, "terminal report line \(label)") }
        precondition(!profile.json.dropLast().contains(where: { $0.isNewline }), "the JSON report spans lines")
    }
}
