/// Picks, for each cell, the block character and the two colours that best reproduce it.
///
/// Tries every pattern of its symbol set (halves, quadrants and eighths, or sextants): the foreground is the mean of the
/// samples it covers, the background the mean of the rest (in linear light), and the error
/// is measured in perceptual units, lightness first. With a palette, the best few patterns
/// are tried again with their colours quantised, because the nearest palette colours can
/// change which pattern is best.
public struct BlockRenderer: Sendable {
    private let lightOnDark: Bool
    private let symbols: BlockSymbols
    /// Samples per cell, across and down: what the image must be scaled to.
    public let subColumns: Int
    public let subRows: Int

    public init(lightOnDark: Bool = true, symbols: BlockSymbols = .quad) {
        self.lightOnDark = lightOnDark
        self.symbols = symbols
        (subColumns, subRows) = BlockPattern.grid(for: symbols)
    }

    /// The grid for `image`, which must be `columns × subColumns` by `rows × subRows` samples.
    public func render(_ image: LinearImage, columns: Int, rows: Int, colors: ColorMode) -> CellGrid {
        precondition(image.width == columns * subColumns && image.height == rows * subRows, "image not scaled to the grid")
        let palette: XtermPalette? = colors == .sixteen ? .sixteen : colors == .twoFiftySix ? .twoFiftySix : nil
        let patterns = BlockPattern.patterns(for: symbols)
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        let sampleCount = subColumns * subRows
        var samples = [LinearColor](repeating: .black, count: sampleCount)
        var perceptual = [Perceptual](repeating: Perceptual(.black), count: sampleCount)
        var candidates: [(error: Float, pattern: Int, foreground: LinearColor, background: LinearColor)] = []
        var nearest = PaletteLookup(palette: palette ?? .twoFiftySix)
        for row in 0..<rows {
            for column in 0..<columns {
                for sy in 0..<subRows {
                    for sx in 0..<subColumns {
                        let color = image.color(x: column * subColumns + sx, y: row * subRows + sy)
                        samples[sy * subColumns + sx] = color
                        perceptual[sy * subColumns + sx] = Perceptual(color)
                    }
                }
                if colors == .none {
                    cells.append(monochromeCell(perceptual, patterns: patterns))
                    continue
                }
                candidates.removeAll(keepingCapacity: true)
                for (index, pattern) in patterns.enumerated() {
                    let (foreground, background) = Self.means(samples, mask: pattern.mask)
                    let error = Self.error(perceptual, mask: pattern.mask, Perceptual(foreground), Perceptual(background))
                    candidates.append((error, index, foreground, background))
                }
                var best = candidates.min { $0.error < $1.error }!
                if let palette {
                    candidates.sort { $0.error < $1.error }
                    var bestError = Float.infinity
                    for candidate in candidates.prefix(6) {
                        let foreground = palette.colors[nearest.index(for: candidate.foreground)]
                        let background = palette.colors[nearest.index(for: candidate.background)]
                        let error = Self.error(
                            perceptual, mask: patterns[candidate.pattern].mask, Perceptual(foreground), Perceptual(background))
                        if error < bestError {
                            bestError = error
                            best = (error, candidate.pattern, foreground, background)
                        }
                    }
                }
                let foreground =
                    palette == nil ? TerminalColor.rgb(best.foreground.rgb) : .indexed(UInt8(nearest.paletteIndex(for: best.foreground)))
                let background =
                    palette == nil ? TerminalColor.rgb(best.background.rgb) : .indexed(UInt8(nearest.paletteIndex(for: best.background)))
                // When both halves come out the same colour the pattern shows nothing: a space
                // says the same in one byte.
                let character = foreground == background ? " " : patterns[best.pattern].character
                cells.append(Cell(character: character, foreground: foreground, background: background))
            }
        }
        return CellGrid(columns: columns, rows: rows, cells: cells)
    }

    /// Without colours the foreground is the terminal's text colour and the background its own:
    /// the pattern becomes a threshold picture.
    private func monochromeCell(_ perceptual: [Perceptual], patterns: [BlockPattern]) -> Cell {
        let light = Perceptual(.white)
        let dark = Perceptual(.black)
        var best: (error: Float, character: Character) = (.infinity, " ")
        for pattern in patterns {
            // Each pattern and its complement (the other way round) are both candidates.
            let normal = Self.error(perceptual, mask: pattern.mask, lightOnDark ? light : dark, lightOnDark ? dark : light)
            if normal < best.error { best = (normal, pattern.character) }
            let inverse = Self.error(perceptual, mask: pattern.mask, lightOnDark ? dark : light, lightOnDark ? light : dark)
            if inverse < best.error { best = (inverse, complementCharacter(of: pattern)) }
        }
        return Cell(character: best.character)
    }

    private func complementCharacter(of pattern: BlockPattern) -> Character {
        let sampleCount = subColumns * subRows
        let full: UInt64 = sampleCount == 64 ? .max : (1 << UInt64(sampleCount)) - 1
        let complement = full ^ pattern.mask
        if complement == full { return BlockPattern.fullBlock }
        return BlockPattern.characterByMask(for: symbols)[complement] ?? pattern.character
    }

    private static func means(_ samples: [LinearColor], mask: UInt64) -> (LinearColor, LinearColor) {
        var foreground = LinearColor.black
        var background = LinearColor.black
        var foregroundCount: Float = 0
        for index in 0..<samples.count {
            let sample = samples[index]
            if mask & (1 << index) != 0 {
                foreground.red += sample.red
                foreground.green += sample.green
                foreground.blue += sample.blue
                foregroundCount += 1
            } else {
                background.red += sample.red
                background.green += sample.green
                background.blue += sample.blue
            }
        }
        let backgroundCount = Float(samples.count) - foregroundCount
        if foregroundCount > 0 {
            foreground = LinearColor(
                red: foreground.red / foregroundCount, green: foreground.green / foregroundCount, blue: foreground.blue / foregroundCount)
        }
        if backgroundCount > 0 {
            background = LinearColor(
                red: background.red / backgroundCount, green: background.green / backgroundCount, blue: background.blue / backgroundCount)
        } else {
            background = foreground
        }
        if foregroundCount == 0 { foreground = background }
        return (foreground, background)
    }

    private static func error(_ samples: [Perceptual], mask: UInt64, _ foreground: Perceptual, _ background: Perceptual) -> Float {
        var total: Float = 0
        for index in 0..<samples.count {
            total += samples[index].distance(to: mask & (1 << index) != 0 ? foreground : background)
        }
        return total
    }
}

/// Nearest-palette lookups memoised per 8-bit sRGB colour.
///
/// A frame asks for the nearest entry tens of thousands of times, mostly for colours it
/// has already seen; a search of 240 entries in OKLab each time was a fifth of the run time.
struct PaletteLookup {
    let palette: XtermPalette
    private var cache: [UInt32: Int] = [:]

    init(palette: XtermPalette) {
        self.palette = palette
    }

    /// The position in `palette.indices` nearest to `color`.
    mutating func index(for color: LinearColor) -> Int {
        let rgb = color.rgb
        let key = UInt32(rgb.red) << 16 | UInt32(rgb.green) << 8 | UInt32(rgb.blue)
        if let found = cache[key] { return found }
        let found = palette.nearest(rgb.linear)
        cache[key] = found
        return found
    }

    /// The xterm index nearest to `color`.
    mutating func paletteIndex(for color: LinearColor) -> Int {
        palette.indices[index(for: color)]
    }
}

/// A colour in perceptual (sRGB-encoded) units, with its encoded luminance, for error sums.
struct Perceptual: Sendable {
    var luma: Float
    var red: Float
    var green: Float
    var blue: Float

    init(_ color: LinearColor) {
        luma = SRGB.perceptual(fromLinear: color.luminance)
        red = SRGB.perceptual(fromLinear: color.red)
        green = SRGB.perceptual(fromLinear: color.green)
        blue = SRGB.perceptual(fromLinear: color.blue)
    }

    /// Lightness errors count most: the eye (and a preview) reads tone before hue.
    @inline(__always)
    func distance(to other: Perceptual) -> Float {
        let dl = luma - other.luma
        let dr = red - other.red
        let dg = green - other.green
        let db = blue - other.blue
        return dl * dl + 0.2 * (dr * dr + dg * dg + db * db)
    }
}
