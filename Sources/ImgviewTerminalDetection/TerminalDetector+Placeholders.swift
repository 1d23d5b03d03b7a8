/// Whether kitty images inside tmux are shown by Unicode placeholders: text tmux keeps, moves,
/// scrolls, clips and draws again itself, where a placement passed through is tmux's to lose.
extension TerminalDetector {
    /// Placeholders, and why or why not. Asked, not guessed: the terminal outside tmux names itself
    /// (XTVERSION through tmux, or tmux's copy of it) as kitty 0.28 or later or Ghostty, and where
    /// it was asked through tmux it also took the kitty query with a virtual placement (`U=1`),
    /// which kitty before 0.28 leaves unanswered and a terminal without placeholders has no use for.
    func kittyPlaceholders(kittyAvailable: Bool, passthrough: Bool) -> (Bool, String?) {
        guard environment.multiplexer == .tmux, passthrough, kittyAvailable else { return (false, nil) }
        let named: (String, String)? =
            outer?.version.map { ($0, "XTVERSION through tmux") } ?? tmux?.clientVersion.map { ($0, "tmux's client") }
        guard let (version, evidence) = named else {
            return (false, "placed through passthrough: the terminal outside tmux did not name itself")
        }
        if let outer, outer.kittyPlaceholders != "OK" {
            return (false, "placed through passthrough: \(version) did not take a virtual placement (U=1)")
        }
        guard Self.drawsPlaceholders(version: version) else {
            return (false, "placed through passthrough: \(version) (\(evidence)) has no Unicode placeholders")
        }
        return (true, "Unicode placeholders: \(version) (\(evidence)) draws them, tmux keeps them as text")
    }

    /// Whether an XTVERSION answer names a terminal with Unicode placeholders: kitty from 0.28
    /// (`kitty(0.35.2)`), Ghostty (`ghostty 1.1.3`, which answers XTVERSION since it has them).
    static func drawsPlaceholders(version: String) -> Bool {
        let lowered = version.lowercased()
        if lowered.hasPrefix("ghostty") { return true }
        guard lowered.hasPrefix("kitty(") else { return false }
        let numbers = lowered.dropFirst(6).prefix { $0.isNumber || $0 == "." }.split(separator: ".").map { Int($0) ?? 0 }
        guard numbers.count >= 2 else { return false }
        return numbers[0] > 0 || numbers[1] >= 28
    }
}
