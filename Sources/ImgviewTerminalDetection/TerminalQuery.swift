import ImgviewImaging

/// The one batched question imgview asks a terminal, sent once, read until DA1 or a deadline.
///
/// Terminals answer in order, and every terminal answers DA1, so DA1 goes last and its answer
/// means "nothing more is coming": a terminal that knows every question is done in one round
/// trip, and one that knows none costs the deadline only when it does not even answer DA1.
public enum TerminalQuery {
    /// XTVERSION, the kitty graphics query (a 1×1 image it must not keep), cell and text-area
    /// size in pixels, DECRQM 2026 (synchronized output), XTSMGRAPHICS (sixel colour
    /// registers), the background colour (OSC 11), DA2 (the terminal's kind and version, for
    /// terminals without XTVERSION), then DA1.
    public static let bytes: [UInt8] = Array(
        ("\u{1B}[>q" + "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\" + "\u{1B}[16t" + "\u{1B}[14t" + "\u{1B}[?2026$p"
            + "\u{1B}[?1;1;0S" + "\u{1B}]11;?\u{1B}\\" + "\u{1B}[>c" + "\u{1B}[c").utf8)

    /// The question inside tmux, which answers it itself: no kitty graphics query, since tmux takes
    /// any APC for a pane title (its status line would show the query), and no DA2, which would be tmux's.
    public static let tmuxBytes: [UInt8] = Array(
        ("\u{1B}[>q" + "\u{1B}[16t" + "\u{1B}[14t" + "\u{1B}[?2026$p" + "\u{1B}[?1;1;0S" + "\u{1B}]11;?\u{1B}\\" + "\u{1B}[c").utf8)

    /// The questions for the terminal outside tmux, passed through it (only when it lets them
    /// through and this pane gets the answers: the active pane of the one client's current window):
    /// XTVERSION, DA2 and the kitty graphics query, ended by DSR, whose answer `CSI 0 n` comes last.
    /// Not DA1: tmux swallows the outer DA answers while it still waits for its own.
    public static let outerBytes: [UInt8] = TmuxPassthrough.wrap(
        Array(("\u{1B}[>q" + "\u{1B}[>c" + "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\" + "\u{1B}[5n").utf8))

    /// Long enough for a terminal over a slow ssh link, short enough not to be noticed.
    public static let defaultTimeout: Duration = .milliseconds(400)

    /// Sends the query (`bytes`, or `tmuxBytes` inside tmux) on `channel` and gathers what comes back within `timeout`.
    public static func run(
        on channel: any TerminalChannel, bytes: [UInt8] = bytes, timeout: Duration = defaultTimeout,
        isComplete: (TerminalReplies) -> Bool = \.isComplete
    ) -> TerminalQueryOutcome {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + timeout
        guard channel.write(bytes) else { return TerminalQueryOutcome(replies: TerminalReplies(), elapsed: .zero, status: .notSent) }
        var parser = TerminalReplyParser()
        while !isComplete(parser.replies) {
            let now = clock.now
            guard now < deadline else { break }
            let bytes = channel.read(before: deadline)
            if !bytes.isEmpty { parser.consume(bytes) }
        }
        let complete = isComplete(parser.replies)
        return TerminalQueryOutcome(replies: parser.finish(), elapsed: clock.now - start, status: complete ? .answered : .timedOut)
    }
}

/// A terminal to ask: its input and output, opened by the terminal module.
public protocol TerminalChannel: AnyObject {
    /// Writes all of `bytes`; false when the terminal cannot be written to.
    func write(_ bytes: [UInt8]) -> Bool
    /// What arrived by `deadline`: returns as soon as anything did, empty once the deadline passed.
    func read(before deadline: ContinuousClock.Instant) -> [UInt8]
}

/// How the query went.
public struct TerminalQueryOutcome: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// DA1 arrived: every answer the terminal gives is in.
        case answered
        /// The deadline passed before DA1: a terminal that never answers, or a slow link.
        case timedOut
        /// The question could not be written.
        case notSent
    }

    public var replies: TerminalReplies
    public var elapsed: Duration
    public var status: Status

    public init(replies: TerminalReplies, elapsed: Duration, status: Status) {
        self.replies = replies
        self.elapsed = elapsed
        self.status = status
    }
}
