/// A block character as a mask over a 2×6 grid of sub-cell samples: which samples its foreground covers.
///
/// 2×6 is the smallest grid on which halves, quadrants (rows of 3) and sextants (rows of 2)
/// all fall on sample boundaries, so every pattern is exact.
struct BlockPattern: Sendable {
    static let subColumns = 2
    static let subRows = 6
    static let sampleCount = subColumns * subRows

    /// Bit `row * 2 + column` set where the foreground shows.
    let mask: UInt16
    let character: Character

    /// Every distinct pattern, one of each complementary pair (swapping the colours gives the other),
    /// plus the empty cell.
    static let all: [BlockPattern] = {
        var patterns: [BlockPattern] = []
        var seen = Set<UInt16>()
        let full: UInt16 = (1 << sampleCount) - 1
        for (mask, character) in [(0, " ")] + drawable {
            guard !seen.contains(mask), !seen.contains(full ^ mask) else { continue }
            seen.insert(mask)
            patterns.append(BlockPattern(mask: mask, character: character))
        }
        return patterns
    }()

    /// The character for every drawable mask, complements included (for when colours cannot be swapped).
    static let characterByMask: [UInt16: Character] = Dictionary(drawable, uniquingKeysWith: { first, _ in first })

    /// Every block character with its mask: the quadrant family, then the sextants.
    private static let drawable: [(UInt16, Character)] = {
        var characters: [(UInt16, Character)] = []
        // Quadrants: upper-left, upper-right, lower-left, lower-right.
        let quadrantCharacters: [UInt8: Character] = [
            0b0011: "▀", 0b1100: "▄", 0b0101: "▌", 0b1010: "▐", 0b0001: "▘", 0b0010: "▝", 0b0100: "▖", 0b1000: "▗",
            0b1001: "▚", 0b0110: "▞", 0b0111: "▛", 0b1011: "▜", 0b1101: "▙", 0b1110: "▟",
        ]
        for (quadrants, character) in quadrantCharacters.sorted(by: { $0.key < $1.key }) {
            var mask: UInt16 = 0
            for row in 0..<subRows {
                let half = row < 3 ? 0 : 2
                if quadrants & (1 << half) != 0 { mask |= 1 << (row * 2) }
                if quadrants & (1 << (half + 1)) != 0 { mask |= 1 << (row * 2 + 1) }
            }
            characters.append((mask, character))
        }
        // Sextants U+1FB00...U+1FB3B: bit b is row b/2, column b%2 of a 2×3 grid; the four
        // patterns that already exist elsewhere (empty, full, left and right half) are skipped.
        for value in 1..<63 where value != 21 && value != 42 {
            var mask: UInt16 = 0
            for bit in 0..<6 where value & (1 << bit) != 0 {
                let (row, column) = (bit / 2, bit % 2)
                mask |= 1 << ((row * 2) * 2 + column)
                mask |= 1 << ((row * 2 + 1) * 2 + column)
            }
            let index = value - 1 - (value > 21 ? 1 : 0) - (value > 42 ? 1 : 0)
            characters.append((mask, Character(Unicode.Scalar(0x1FB00 + UInt32(index))!)))
        }
        return characters
    }()

    static let fullBlock: Character = "█"
}
