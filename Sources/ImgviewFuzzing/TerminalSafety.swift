import ImgviewSupport

/// The check every target makes of text it would print: one line, nothing a terminal would obey.
enum TerminalSafety {
    /// Fails when `message` spans lines or carries a control character, escape or bidi override.
    static func requireSafe(_ message: String, _ what: @autoclosure () -> String) {
        precondition(!message.unicodeScalars.contains(where: TerminalText.isUnsafe), "\(what()) carries control characters")
    }
}
