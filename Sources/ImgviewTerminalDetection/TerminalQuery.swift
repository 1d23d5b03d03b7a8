import ImgviewImaging
import ImgviewSupport

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
    public static let bytes: [UInt8] =
        EscapeSequence.requestVersion + KittyGraphicsEncoder().query(id: kittyQueryID) + EscapeSequence.requestCellSize
        + EscapeSequence.requestTextAreaSize + EscapeSequence.requestMode(.synchronizedOutput)
        + EscapeSequence.requestSixelColorRegisters + EscapeSequence.requestBackgroundColor
        + EscapeSequence.requestSecondaryDeviceAttributes
        + EscapeSequence.requestDeviceAttributes

    /// The question inside tmux, which answers it itself: no kitty graphics query, since tmux takes
    /// any APC for a pane title (its status line would show the query), and no DA2, which would be tmux's.
    public static let tmuxBytes: [UInt8] =
        EscapeSequence.requestVersion + EscapeSequence.requestCellSize + EscapeSequence.requestTextAreaSize
        + EscapeSequence.requestMode(.synchronizedOutput) + EscapeSequence.requestSixelColorRegisters
        + EscapeSequence.requestBackgroundColor + EscapeSequence.requestDeviceAttributes

    /// The questions for the terminal outside tmux, passed through it (only when it lets them
    /// through and this pane gets the answers: the active pane of the one client's current window):
    /// XTVERSION, DA2 and the kitty graphics query, the same with a virtual placement (whether the
    /// terminal has Unicode placeholders, which tmux keeps as text), ended by DSR, whose answer
    /// `CSI 0 n` comes last. Not DA1: tmux swallows the outer DA answers while it still waits for its own.
    public static let outerBytes: [UInt8] = TerminalRoute.tmuxPassthrough.wrap(
        EscapeSequence.requestVersion + EscapeSequence.requestSecondaryDeviceAttributes + KittyGraphicsEncoder().query(id: kittyQueryID)
            + KittyGraphicsEncoder().placeholderQuery(id: kittyPlaceholderQueryID) + EscapeSequence.requestStatusReport)

    /// The id of the kitty query's image, which its answer names.
    static let kittyQueryID: UInt32 = 31
    /// The id of the question with a virtual placement.
    static let kittyPlaceholderQueryID: UInt32 = 32

    /// Long enough for a terminal over a slow ssh link, short enough not to be noticed.
    public static let defaultTimeout: Duration = .milliseconds(400)

    /// Sends the query on `channel` and gathers what comes back within `timeout` (see
    /// `TerminalReplyReader`), then drops what is left of a broken or flooding answer in the
    /// terminal's input and gives back, unechoed, the keys typed meanwhile. `clock` is the
    /// system's in the program, one a test moves with the channel's replies.
    public static func run(
        on channel: any TerminalChannel, bytes: [UInt8] = bytes, timeout: Duration = defaultTimeout,
        clock: any PlaybackClock = SystemPlaybackClock()
    ) -> TerminalQueryOutcome {
        let start = clock.now
        guard channel.write(bytes) else { return TerminalQueryOutcome(replies: TerminalReplies(), elapsed: .zero, status: .notSent) }
        var reader = TerminalReplyReader(deadline: timeout)
        while let wait = reader.wait(at: clock.now - start) {
            let bytes = channel.read(timeout: wait)
            reader.receive(bytes, at: clock.now - start)
        }
        let outcome = reader.finish(elapsed: clock.now - start)
        if outcome.discardsPendingInput { channel.discardInput() }
        if !outcome.replies.unclaimed.isEmpty { channel.giveBack(outcome.replies.unclaimed) }
        return outcome
    }
}

/// A terminal to ask: its input and output, opened by the terminal module.
public protocol TerminalChannel: AnyObject {
    /// Writes all of `bytes`; false when the terminal cannot be written to.
    func write(_ bytes: [UInt8]) -> Bool
    /// What arrives within `timeout`: returns as soon as anything does, empty when nothing did.
    func read(timeout: Duration) -> [UInt8]
    /// Drops whatever the terminal sent that was not read: the rest of a broken answer or a flood.
    func discardInput()
    /// Puts `bytes` back as input for the next reader (keys typed during the query), unechoed.
    func giveBack(_ bytes: [UInt8])
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
    /// Whether something broken or unasked-for arrived (a fragment, noise, a flood), so that what
    /// is still in the terminal's input is more of it and must be dropped, not left for the shell.
    public var discardsPendingInput: Bool

    public init(replies: TerminalReplies, elapsed: Duration, status: Status, discardsPendingInput: Bool = false) {
        self.replies = replies
        self.elapsed = elapsed
        self.status = status
        self.discardsPendingInput = discardsPendingInput
    }
}
