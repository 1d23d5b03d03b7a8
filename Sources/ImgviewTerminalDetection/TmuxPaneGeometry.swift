/// Where the tmux pane a full-screen program runs in is in the outer terminal, and whether the
/// outer terminal shows it now: what an image passed through tmux is placed by, and whether it
/// may be drawn at all (tmux drops passthrough from a pane it does not show, or, with
/// `allow-passthrough all`, sends it to the client showing something else there).
public struct TmuxPaneGeometry: Sendable, Equatable {
    public var origin: TmuxPaneOrigin
    /// The pane's window, as tmux names it (`@3`).
    public var window: String
    /// The window is its session's current one, no other pane of it is zoomed, and the pane is
    /// not in a mode (copy mode draws over it).
    public var isVisible: Bool

    public init(origin: TmuxPaneOrigin, window: String, isVisible: Bool) {
        self.origin = origin
        self.window = window
        self.isVisible = isVisible
    }

    /// What `display-message -p -t PANE` is asked. No window offsets: those of a window bigger
    /// than the client are the asking client's, and a control client's are not a real client's
    /// (DECISIONS.md, "Images in tmux panes"), so a window bigger than its client is not followed.
    public static let format =
        "#{pane_top},#{pane_left},0,0,#{status},#{status-position},#{window_id},#{window_active},#{window_zoomed_flag},#{pane_active},#{pane_in_mode}"

    /// Reads tmux's answer to `format`; nil when it is not one.
    public init?(formatAnswer line: String) {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 11, let origin = TmuxPaneOrigin(formatAnswer: fields[0..<6].joined(separator: ",")),
            fields[6].hasPrefix("@")
        else { return nil }
        let flags = fields[7...].map { $0 == "1" }
        let (windowActive, zoomed, paneActive, inMode) = (flags[0], flags[1], flags[2], flags[3])
        self.init(origin: origin, window: fields[6], isVisible: windowActive && (!zoomed || paneActive) && !inMode)
    }
}
