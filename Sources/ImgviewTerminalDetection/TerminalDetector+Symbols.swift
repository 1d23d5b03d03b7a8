import ImgviewImaging

/// Which block characters the terminal can show: sextants only where an answer names a terminal
/// that draws them itself, since no font it might use is known to have them.
extension TerminalDetector {
    /// The symbol set `auto` takes, and what said so.
    func blockSymbols(replies: TerminalReplies) -> (BlockSymbols, String) {
        let answers: [(String, String)]
        if environment.multiplexer == .tmux {
            // tmux answers XTVERSION and DA2 itself: the outer terminal's answers came through
            // passthrough, or tmux keeps a copy of its client's XTVERSION.
            answers = [outer?.version.map { ($0, "XTVERSION through tmux") }, tmux?.clientVersion.map { ($0, "tmux's client") }].compactMap
            { $0 }
        } else {
            answers = replies.version.map { [($0, "XTVERSION")] } ?? []
        }
        for (version, evidence) in answers {
            if let drawer = Self.sextantDrawer(version: version) { return (.sextant, "\(drawer) draws sextants itself (\(evidence))") }
        }
        let secondary = environment.multiplexer == nil ? replies.secondaryAttributes : outer?.secondaryAttributes
        if let secondary, let drawer = Self.sextantDrawer(da2: secondary) {
            return (.sextant, "\(drawer) draws sextants itself (DA2\(environment.multiplexer == nil ? "" : " through tmux"))")
        }
        return (.quad, "halves and quadrants: no answer names a terminal that draws sextants itself")
    }

    /// The terminal an XTVERSION answer names if it draws the sextants itself rather than from a font:
    /// kitty, WezTerm, foot, Ghostty, iTerm2, and VTE from 0.72.
    static func sextantDrawer(version: String) -> String? {
        let lowered = version.lowercased()
        for name in ["kitty", "wezterm", "foot", "ghostty", "iterm2"] where lowered.hasPrefix(name) {
            return version
        }
        // VTE's XTVERSION is `VTE(7600)`: the version as in VTE_VERSION.
        if lowered.hasPrefix("vte("), let number = Int(lowered.dropFirst(4).prefix { $0.isNumber }), number >= 7200 {
            return version
        }
        return nil
    }

    /// The same from DA2: kitty's `> 1 ; 4000 ; N`, VTE's `> 65 ; VVVV ; 1` (VTE 0.72 is 7200).
    static func sextantDrawer(da2 attributes: [Int]) -> String? {
        guard attributes.count >= 2 else { return nil }
        if attributes[0] == 1, attributes[1] == 4000 { return "kitty" }
        if attributes[0] == 65, attributes[1] >= 7200 { return "VTE \(attributes[1] / 10000).\(attributes[1] / 100 % 100)" }
        return nil
    }
}
