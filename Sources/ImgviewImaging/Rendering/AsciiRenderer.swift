/// Picks, for each cell, the printable ASCII character whose shape best matches the image there.
///
/// Each glyph's real coverage of a 2×4 grid of sub-cells (measured from DejaVu Sans Mono,
/// see `AsciiGlyphTable`) is compared with the image's luminance on the same grid, in
/// perceptual units; the glyph with the smallest squared error wins. Unlike a luminance
/// ramp this draws edges: a cell that is bright on top picks `"`, one bright on the left `[`.
/// The error also weighs the cell's mean tone heavily, because a glyph that has the right
/// shape but the wrong overall brightness makes the whole picture blotchy (the score this term
/// gains on the bench photos is in DECISIONS.md, "ASCII glyph choice weighs the cell's mean tone").
public struct AsciiRenderer: Sendable {
    /// Sub-cells per cell the renderer reads from the scaled image.
    public static let subColumns = AsciiGlyphTable.columns
    public static let subRows = AsciiGlyphTable.rows

    private let characters: [Character]
    /// Per glyph, per sub-cell: the light it shows, perceptual, relative to the densest glyph.
    private let patterns: [[Float]]
    /// Per glyph: its mean light relative to the densest glyph, linear.
    private let meanCoverage: [Float]
    /// Per glyph: the mean of `patterns`, for the tone term of the error.
    private let patternMeans: [Float]
    /// How much the cell's mean tone counts against its shape, per sample.
    static let toneWeight: Float = 3

    public init(lightOnDark: Bool = true) {
        let glyphs = AsciiGlyphTable.glyphs
        // A plain-text terminal cannot be brighter than its densest glyph: that is "white".
        let white = glyphs.map { Float($0.coverage.reduce(0) { $0 + Int($1) }) / Float($0.coverage.count * 255) }.max() ?? 1
        characters = glyphs.map(\.character)
        meanCoverage = glyphs.map { min(1, Float($0.coverage.reduce(0) { $0 + Int($1) }) / Float($0.coverage.count * 255) / white) }
        patterns = glyphs.map { glyph in
            glyph.coverage.map { value in
                let light = min(1, Float(value) / 255 / white)
                return SRGB.perceptual(fromLinear: lightOnDark ? light : 1 - light)
            }
        }
        patternMeans = patterns.map { $0.reduce(0, +) / Float($0.count) }
    }

    /// The grid for `image`, which must be `columns × subColumns` by `rows × subRows` samples.
    public func render(_ image: LinearImage, columns: Int, rows: Int, colors: ColorMode) -> CellGrid {
        precondition(image.width == columns * Self.subColumns && image.height == rows * Self.subRows, "image not scaled to the grid")
        let samplesPerCell = Self.subColumns * Self.subRows
        let palette: XtermPalette? = colors == .sixteen ? .sixteen : colors == .twoFiftySix ? .twoFiftySix : nil
        var cells: [Cell] = []
        cells.reserveCapacity(columns * rows)
        var target = [Float](repeating: 0, count: samplesPerCell)
        for row in 0..<rows {
            for column in 0..<columns {
                var mean = LinearColor.black
                for sy in 0..<Self.subRows {
                    for sx in 0..<Self.subColumns {
                        let color = image.color(x: column * Self.subColumns + sx, y: row * Self.subRows + sy)
                        target[sy * Self.subColumns + sx] = SRGB.perceptual(fromLinear: color.luminance)
                        mean.red += color.red
                        mean.green += color.green
                        mean.blue += color.blue
                    }
                }
                let glyph = bestGlyph(for: target)
                var cell = Cell(character: characters[glyph])
                if colors != .none, meanCoverage[glyph] > 0 {
                    // The glyph carries the brightness; the colour is the cell's hue at full strength.
                    let scale = 1 / (Float(samplesPerCell) * meanCoverage[glyph])
                    let color = LinearColor(
                        red: min(1, mean.red * scale), green: min(1, mean.green * scale), blue: min(1, mean.blue * scale))
                    cell.foreground = TerminalColor(color, palette: palette)
                }
                cells.append(cell)
            }
        }
        return CellGrid(columns: columns, rows: rows, cells: cells)
    }

    private func bestGlyph(for target: [Float]) -> Int {
        var best = 0
        var bestError = Float.infinity
        let targetMean = target.reduce(0, +) / Float(target.count)
        for (index, pattern) in patterns.enumerated() {
            let toneError = targetMean - patternMeans[index]
            var error = Self.toneWeight * Float(target.count) * toneError * toneError
            for sample in 0..<target.count {
                let difference = target[sample] - pattern[sample]
                error += difference * difference
            }
            if error < bestError {
                bestError = error
                best = index
            }
        }
        return best
    }
}
