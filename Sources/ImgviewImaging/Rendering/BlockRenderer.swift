/// Picks, for each cell, the block character and the two colours that best reproduce it.
///
/// Tries every pattern of its symbol set (halves, quadrants and eighths, or sextants): the foreground is the mean of the
/// samples it covers, the background the mean of the rest (in linear light), and the error
/// is measured in perceptual units, lightness first. With a palette, the best few patterns
/// are tried again with their colours quantised, because the nearest palette colours can
/// change which pattern is best. A large grid is rendered in two bands of rows at once, one per
/// core; each cell depends on its own samples alone, so the cells are the same either way.
public struct BlockRenderer: Sendable {
    private let lightOnDark: Bool
    private let symbols: BlockSymbols
    /// Samples per cell, across and down: what the image must be scaled to.
    public let subColumns: Int
    public let subRows: Int
    /// The samples from which a second band is worth its thread.
    private let samplesPerExtraBand: Int

    public init(lightOnDark: Bool = true, symbols: BlockSymbols = .quad) {
        self.init(lightOnDark: lightOnDark, symbols: symbols, samplesPerExtraBand: 50_000)
    }

    /// A renderer that goes to a second band from `samplesPerExtraBand` (tests: 0 for always, `.max` for never).
    init(lightOnDark: Bool = true, symbols: BlockSymbols = .quad, samplesPerExtraBand: Int) {
        self.lightOnDark = lightOnDark
        self.symbols = symbols
        self.samplesPerExtraBand = samplesPerExtraBand
        (subColumns, subRows) = BlockPattern.grid(for: symbols)
    }

    /// The grid for `image`, which must be `columns × subColumns` by `rows × subRows` samples.
    public func render(_ image: LinearImage, columns: Int, rows: Int, colors: ColorMode) -> CellGrid {
        precondition(image.width == columns * subColumns && image.height == rows * subRows, "image not scaled to the grid")
        var cells = [Cell](repeating: Cell(character: " "), count: columns * rows)
        let bands = image.width * image.height >= samplesPerExtraBand && rows > 1 ? 2 : 1
        cells.withUnsafeMutableBufferPointer { cells in
            // Each band writes only its own rows of `cells`.
            nonisolated(unsafe) let cells = cells
            RowBands.run(rows: rows, bands: bands) { bandRows in
                self.render(image, columns: columns, rows: bandRows, colors: colors, into: cells)
            }
        }
        return CellGrid(columns: columns, rows: rows, cells: cells)
    }

    /// The cells of `rows`, written to their place in `cells` (`columns` a row).
    private func render(
        _ image: LinearImage, columns: Int, rows: Range<Int>, colors: ColorMode, into cells: UnsafeMutableBufferPointer<Cell>
    ) {
        let palette: XtermPalette? = colors == .sixteen ? .sixteen : colors == .twoFiftySix ? .twoFiftySix : nil
        let patterns = BlockPattern.patterns(for: symbols)
        let rectangles = SampleRectangles(masks: patterns.map(\.mask), columns: subColumns, rows: subRows)
        var samples = CellSamples(columns: subColumns, rows: subRows)
        var candidates: [Candidate] = []
        var nearest = PaletteLookup(palette: palette ?? .twoFiftySix)
        for row in rows {
            for column in 0..<columns {
                samples.load(image, column: column, row: row)
                if colors == .none {
                    cells[row * columns + column] = monochromeCell(samples, patterns: patterns, rectangles: rectangles)
                    continue
                }
                var best = Candidate(samples, pattern: 0, mask: patterns[0].mask, rectangles: rectangles)
                if palette != nil { candidates.append(best) }
                for index in 1..<patterns.count {
                    let candidate = Candidate(samples, pattern: index, mask: patterns[index].mask, rectangles: rectangles)
                    // The first of equal errors wins.
                    if candidate.error < best.error { best = candidate }
                    if palette != nil { candidates.append(candidate) }
                }
                if let palette {
                    candidates.sort { $0.error < $1.error }
                    var bestError = Float.infinity
                    for var candidate in candidates.prefix(6) {
                        candidate.foreground = palette.colors[nearest.index(for: candidate.foreground)]
                        candidate.background = palette.colors[nearest.index(for: candidate.background)]
                        candidate.error = candidate.error(in: samples)
                        if candidate.error < bestError {
                            bestError = candidate.error
                            best = candidate
                        }
                    }
                    candidates.removeAll(keepingCapacity: true)
                }
                let foreground =
                    palette == nil ? TerminalColor.rgb(best.foreground.rgb) : .indexed(UInt8(nearest.paletteIndex(for: best.foreground)))
                let background =
                    palette == nil ? TerminalColor.rgb(best.background.rgb) : .indexed(UInt8(nearest.paletteIndex(for: best.background)))
                // When both halves come out the same colour the pattern shows nothing: a space
                // says the same in one byte.
                let character = foreground == background ? " " : patterns[best.pattern].character
                cells[row * columns + column] = Cell(character: character, foreground: foreground, background: background)
            }
        }
    }

    /// Without colours the foreground is the terminal's text colour and the background its own:
    /// the pattern becomes a threshold picture.
    private func monochromeCell(_ samples: CellSamples, patterns: [BlockPattern], rectangles: SampleRectangles) -> Cell {
        let light = samples.target(.white)
        let dark = samples.target(.black)
        var best: (error: Float, character: Character) = (.infinity, " ")
        for (index, pattern) in patterns.enumerated() {
            let covered = samples.sum(over: rectangles, pattern: index)
            let rest = samples.total - covered
            let count = pattern.mask.nonzeroBitCount
            let restCount = samples.count - count
            // Each pattern and its complement (the other way round) are both candidates.
            let (onLight, onDark) = (
                CellSamples.error(of: covered, count: count, against: light), CellSamples.error(of: covered, count: count, against: dark)
            )
            let (restLight, restDark) = (
                CellSamples.error(of: rest, count: restCount, against: light), CellSamples.error(of: rest, count: restCount, against: dark)
            )
            let normal = lightOnDark ? onLight + restDark : onDark + restLight
            if normal < best.error { best = (normal, pattern.character) }
            let inverse = lightOnDark ? onDark + restLight : onLight + restDark
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

    /// A pattern drawn in two colours, with the sums of the samples on each side and its error.
    private struct Candidate {
        var pattern: Int
        var foreground: LinearColor
        var background: LinearColor
        var error: Float = 0
        let covered: SIMD8<Float>
        let count: Int
        let rest: SIMD8<Float>
        let restCount: Int

        /// The pattern in the mean colours of its two sides (a side without samples takes the other's).
        init(_ samples: CellSamples, pattern: Int, mask: UInt64, rectangles: SampleRectangles) {
            self.pattern = pattern
            covered = samples.sum(over: rectangles, pattern: pattern)
            rest = samples.total - covered
            count = mask.nonzeroBitCount
            restCount = samples.count - count
            foreground = count > 0 ? CellSamples.meanColor(of: covered, count: count) : CellSamples.meanColor(of: rest, count: restCount)
            background = restCount > 0 ? CellSamples.meanColor(of: rest, count: restCount) : foreground
            error = error(in: samples)
        }

        /// The sum over the cell's samples of their distance to the colour drawn over them.
        func error(in samples: CellSamples) -> Float {
            CellSamples.error(of: covered, count: count, against: samples.target(foreground))
                + CellSamples.error(of: rest, count: restCount, against: samples.target(background))
        }
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
