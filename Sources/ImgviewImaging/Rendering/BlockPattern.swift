/// A block character as a mask over a grid of sub-cell samples: which samples its foreground covers.
///
/// Each symbol set has the smallest grid on which all its characters fall on sample boundaries,
/// so every pattern is exact: 8×8 for halves, quadrants and the eighth blocks (▁ to ▇, ▏ to ▉),
/// 2×6 for quadrants (rows of 3) with sextants (rows of 2).
struct BlockPattern: Sendable {
    /// Bit `row * columns + column` set where the foreground shows.
    let mask: UInt64
    let character: Character

    /// The sample grid of `symbols`, in columns and rows per cell.
    static func grid(for symbols: BlockSymbols) -> (columns: Int, rows: Int) {
        symbols == .sextant ? (2, 6) : (8, 8)
    }

    /// The patterns of `symbols`: one of each complementary pair (swapping the colours gives the
    /// other), plus the empty cell.
    static func patterns(for symbols: BlockSymbols) -> [BlockPattern] {
        switch symbols {
        case .block: halves
        case .quad: quadrants
        case .sextant: sextants
        }
    }

    /// The character for every drawable mask of `symbols`, complements included (for when colours
    /// cannot be swapped).
    static func characterByMask(for symbols: BlockSymbols) -> [UInt64: Character] {
        switch symbols {
        case .block: halvesByMask
        case .quad: quadrantsByMask
        case .sextant: sextantsByMask
        }
    }

    static let fullBlock: Character = "█"

    private static let halfCharacters: Set<Character> = ["▀", "▄", "▌", "▐"]
    private static let fine = eighthFamily + quadrantFamily(columns: 8, rows: 8)
    private static let coarse = quadrantFamily(columns: 2, rows: 6) + sextantFamily
    private static let halves = distinct(fine.filter { halfCharacters.contains($0.1) }, samples: 64)
    private static let quadrants = distinct(fine, samples: 64)
    private static let sextants = distinct(coarse, samples: 12)
    private static let halvesByMask = Dictionary(fine.filter { halfCharacters.contains($0.1) }, uniquingKeysWith: { first, _ in first })
    private static let quadrantsByMask = Dictionary(fine, uniquingKeysWith: { first, _ in first })
    private static let sextantsByMask = Dictionary(coarse, uniquingKeysWith: { first, _ in first })

    private static func distinct(_ characters: [(UInt64, Character)], samples: Int) -> [BlockPattern] {
        var patterns: [BlockPattern] = []
        var seen = Set<UInt64>()
        let full: UInt64 = samples == 64 ? .max : (1 << UInt64(samples)) - 1
        for (mask, character) in [(0, " ")] + characters {
            guard !seen.contains(mask), !seen.contains(full ^ mask) else { continue }
            seen.insert(mask)
            patterns.append(BlockPattern(mask: mask, character: character))
        }
        return patterns
    }

    /// The mask of the samples of a `columns × rows` grid for which `covers(x, y)` holds, x and y in 0..<1.
    private static func mask(columns: Int, rows: Int, _ covers: (Double, Double) -> Bool) -> UInt64 {
        var mask: UInt64 = 0
        for row in 0..<rows {
            for column in 0..<columns
            where covers((Double(column) + 0.5) / Double(columns), (Double(row) + 0.5) / Double(rows)) {
                mask |= 1 << UInt64(row * columns + column)
            }
        }
        return mask
    }

    /// Halves and quadrants (U+2580–U+259F), on a grid with an even number of columns and rows.
    private static func quadrantFamily(columns: Int, rows: Int) -> [(UInt64, Character)] {
        // Quadrants: upper-left, upper-right, lower-left, lower-right.
        let quadrantCharacters: [UInt8: Character] = [
            0b0011: "▀", 0b1100: "▄", 0b0101: "▌", 0b1010: "▐", 0b0001: "▘", 0b0010: "▝", 0b0100: "▖", 0b1000: "▗",
            0b1001: "▚", 0b0110: "▞", 0b0111: "▛", 0b1011: "▜", 0b1101: "▙", 0b1110: "▟",
        ]
        return quadrantCharacters.sorted { $0.key < $1.key }.map { quadrants, character in
            let bits = mask(columns: columns, rows: rows) { x, y in quadrants & (1 << ((y < 0.5 ? 0 : 2) + (x < 0.5 ? 0 : 1))) != 0 }
            return (bits, character)
        }
    }

    /// The eighth blocks (U+2581–U+2589, U+2594, U+2595), on the 8×8 grid.
    private static let eighthFamily: [(UInt64, Character)] = {
        var characters: [(UInt64, Character)] = []
        // Lower one to seven eighths, ▁ to ▇ (▄ is among the halves), and the upper eighth ▔.
        for (eighths, character) in zip(1...7, ["▁", "▂", "▃", "▄", "▅", "▆", "▇"] as [Character]) where eighths != 4 {
            characters.append((mask(columns: 8, rows: 8) { _, y in y > 1 - Double(eighths) / 8 }, character))
        }
        characters.append((mask(columns: 8, rows: 8) { _, y in y < 1.0 / 8 }, "▔"))
        // Left seven to one eighths, ▉ to ▏ (▌ is among the halves), and the right eighth ▕.
        for (eighths, character) in zip((1...7).reversed(), ["▉", "▊", "▋", "▌", "▍", "▎", "▏"] as [Character]) where eighths != 4 {
            characters.append((mask(columns: 8, rows: 8) { x, _ in x < Double(eighths) / 8 }, character))
        }
        characters.append((mask(columns: 8, rows: 8) { x, _ in x > 7.0 / 8 }, "▕"))
        return characters
    }()

    /// Sextants U+1FB00…U+1FB3B on the 2×6 grid: bit b is row b/2, column b%2 of a 2×3 grid; the
    /// four patterns that already exist elsewhere (empty, full, left and right half) are skipped.
    private static let sextantFamily: [(UInt64, Character)] = {
        var characters: [(UInt64, Character)] = []
        for value in 1..<63 where value != 21 && value != 42 {
            var mask: UInt64 = 0
            for bit in 0..<6 where value & (1 << bit) != 0 {
                let (row, column) = (bit / 2, bit % 2)
                mask |= 1 << UInt64((row * 2) * 2 + column)
                mask |= 1 << UInt64((row * 2 + 1) * 2 + column)
            }
            let index = value - 1 - (value > 21 ? 1 : 0) - (value > 42 ? 1 : 0)
            characters.append((mask, Character(Unicode.Scalar(0x1FB00 + UInt32(index))!)))
        }
        return characters
    }()
}
