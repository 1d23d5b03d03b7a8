/// The ways a terminal can be sent real pixels.
public enum GraphicsProtocol: String, Sendable, CaseIterable, Codable, Comparable {
    /// The kitty graphics protocol (APC `_G`): kitty, Ghostty, WezTerm, Konsole.
    case kitty
    /// iTerm2's inline images (OSC 1337 `File=`): iTerm2, WezTerm, mlterm, Konsole.
    case iterm
    /// DEC sixel (DCS `q`): xterm as a VT340, foot, mlterm, WezTerm, Windows Terminal, Konsole.
    case sixel

    /// The order `auto` prefers: full colour with ids and deletion, then full colour, then a palette.
    public static func < (lhs: GraphicsProtocol, rhs: GraphicsProtocol) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
