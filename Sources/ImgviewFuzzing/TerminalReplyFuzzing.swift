import ImgviewTerminalDetection

/// Bytes arriving from a terminal while imgview waits for its answers — the answers, keys the
/// user typed, and whatever a hostile or broken terminal sends — and when each piece arrives,
/// against the query's deadline.
///
/// The input is pieces: a byte of delay (in 5 ms steps), a byte of length, then that many bytes.
/// The reader must be done by the deadline plus its grace whatever arrives, give back only clean
/// keys and only a bounded number of them, read the same answers however the bytes were split,
/// and leave nothing the report prints able to command the terminal.
enum TerminalReplyFuzzing {
    static func run(_ bytes: [UInt8]) {
        // The pieces, and when each arrives.
        var pieces: [(at: Duration, bytes: [UInt8])] = []
        var time = Duration.zero
        var index = 0
        while index + 1 < bytes.count {
            time += .milliseconds(5 * Int(bytes[index]))
            let length = Int(bytes[index + 1])
            let end = min(bytes.count, index + 2 + length)
            pieces.append((time, Array(bytes[(index + 2)..<end])))
            index = end
        }

        // Read as the query reads, on a clock that moves only by the waits.
        let deadline = Duration.milliseconds(400)
        var reader = TerminalReplyReader(deadline: deadline)
        var now = Duration.zero
        var next = 0
        var reads = 0
        while let wait = reader.wait(at: now) {
            reads += 1
            precondition(reads <= pieces.count + 16, "the reader waits again and again")
            if next < pieces.count, pieces[next].at <= now + wait {
                now = max(now, pieces[next].at)
                reader.receive(pieces[next].bytes, at: now)
                next += 1
            } else {
                now += wait
            }
        }
        precondition(now <= deadline + TerminalReplyReader.grace, "read past the deadline and its grace")
        let outcome = reader.finish(elapsed: now)
        let typed = outcome.replies.unclaimed
        precondition(typed.count <= TerminalReplyParser.longestTypeahead, "more keys given back than a person types")
        precondition(typed.isEmpty || !outcome.discardsPendingInput, "keys given back from a broken answer")
        // What is given back is clean: read again, it is all keys and no noise.
        var again = TerminalReplyParser()
        again.consume(typed)
        let reread = again.finish()
        precondition(!again.sawNoise && reread.unclaimed == typed, "a fragment or noise given back as keys")

        // All the bytes at once, or a few at a time (as reads may deliver them), read the same.
        let all = pieces.flatMap(\.bytes)
        var whole = TerminalReplyParser()
        whole.consume(all)
        let replies = whole.finish()
        var split = TerminalReplyParser()
        var start = 0
        var step = 1
        while start < all.count {
            let end = min(all.count, start + step)
            split.consume(Array(all[start..<end]))
            start = end
            step = step % 7 + 1
        }
        precondition(split.finish() == replies && split.sawNoise == whole.sawNoise, "the answers depend on how the bytes were split")
        if let cell = replies.cellPixels {
            precondition(cell.width <= 128 && cell.height <= 256, "a cell larger than any terminal's believed")
        }

        // Whatever was claimed or not, the report a user reads is safe to print.
        let profile = TerminalDetector(environment: TerminalEnvironment(["TERM": "xterm-256color"]), query: outcome).profile()
        for (label, value) in profile.reportLines { TerminalSafety.requireSafe(value, "terminal report line \(label)") }
        precondition(!profile.json.dropLast().contains(where: { $0.isNewline }), "the JSON report spans lines")
    }
}
