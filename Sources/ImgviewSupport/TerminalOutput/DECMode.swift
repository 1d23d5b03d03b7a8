/// The DEC private modes imgview sets and resets (`CSI ? n h`, `CSI ? n l`) or asks about.
public enum DECMode: Int, Sendable, CaseIterable {
    /// DECTCEM: the cursor is shown.
    case cursorVisible = 25
    /// xterm's button press and release reports.
    case mouseButtonReports = 1000
    /// Mouse reports in the SGR encoding (`CSI < b ; x ; y M`), which has no column limit.
    case mouseSGREncoding = 1006
    /// Synchronized output: the terminal holds what it is sent until the mode is reset.
    case synchronizedOutput = 2026
}
