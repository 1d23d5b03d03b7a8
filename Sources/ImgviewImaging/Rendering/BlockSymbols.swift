/// Which block characters a colour-block preview may use, as chafa's `--symbols` names them.
///
/// Halves and quadrants (U+2580–U+259F) are in every monospace font; sextants (U+1FB00–U+1FB3B,
/// Unicode 13) are in few, and a terminal that neither has them in its font nor draws them itself
/// shows each as a replacement glyph, which turns a photo into noise.
public enum BlockSymbols: String, Sendable, Hashable, CaseIterable, Codable {
    /// The four half blocks: ▀ ▄ ▌ ▐.
    case block
    /// Halves and quadrants (▘ ▝ ▖ ▗ ▚ ▞ ▛ ▜ ▙ ▟ too): the default, drawable everywhere.
    case quad
    /// Halves, quadrants and the sextants: finer, for terminals that draw them themselves.
    case sextant
}
