/// Scales pixels to an exact size by area averaging in linear light, composing alpha over a background.
///
/// Every output sample is the mean of the source area it covers, pixels at the edges
/// counted by the fraction inside. Averaging sRGB values directly would darken every
/// edge and fine texture; linear light keeps the brightness a viewer sees. A large image is
/// scaled in two bands of output rows at once, one per core, with the same values as one band.
public struct AreaScaler: Sendable {
    public var background: RGBColor
    /// The source pixels read from which a second band is worth its thread.
    private let readsPerExtraBand: Int

    public init(background: RGBColor = RGBColor(red: 0, green: 0, blue: 0)) {
        self.init(background: background, readsPerExtraBand: 150_000)
    }

    /// A scaler that goes to a second band from `readsPerExtraBand` (tests: 0 for always, `.max` for never).
    init(background: RGBColor, readsPerExtraBand: Int) {
        self.background = background
        self.readsPerExtraBand = readsPerExtraBand
    }

    /// Scales `region` of `pixels` (all of them when nil), in pixels and fractions of them, to `width × height`.
    public func scale(_ pixels: PixelBuffer, region: Viewport.Region? = nil, toWidth width: Int, height: Int) -> LinearImage {
        let area = region ?? Viewport.Region(covering: pixels)
        let horizontal = Self.contributions(source: pixels.width, from: area.x, length: area.width, destination: width)
        let vertical = Self.contributions(source: pixels.height, from: area.y, length: area.height, destination: height)
        var output = [Float](repeating: 0, count: width * height * 3)
        let reads = horizontal.sources.count * vertical.sources.count
        let bands = reads >= readsPerExtraBand && height > 1 ? 2 : 1
        output.withUnsafeMutableBufferPointer { output in
            // Each band writes only its own rows of `output`; the source row at the seam is read by both.
            nonisolated(unsafe) let output = output
            RowBands.run(rows: height, bands: bands) { rows in
                self.scale(pixels, horizontal: horizontal, vertical: vertical, rows: rows, width: width, into: output)
            }
        }
        return LinearImage(width: width, height: height, values: output)
    }

    /// Output `rows` of the scaled image, written to their place in `output` (`width` samples a row).
    private func scale(
        _ pixels: PixelBuffer, horizontal: Contributions, vertical: Contributions, rows: Range<Int>, width: Int,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        var reduced = [Float](repeating: 0, count: width * 3)
        // The source columns the contributions read (a zoomed view reads a part of each row).
        let columns = (horizontal.sources.min() ?? 0)..<((horizontal.sources.max() ?? -1) + 1)
        var composed = [Float](repeating: 0, count: columns.count * 3)
        let rowLength = pixels.width * 4
        let onePerSample = horizontal.onePerSample
        let background = background.linear
        pixels.bytes.withUnsafeBufferPointer { source in
            SRGB.toLinear.withUnsafeBufferPointer { toLinear in
                reduced.withUnsafeMutableBufferPointer { reduced in
                    composed.withUnsafeMutableBufferPointer { composed in
                        var reducedRow = -1
                        for y in rows {
                            let outputRow = output.baseAddress! + y * width * 3
                            for contribution in vertical.ranges[y] {
                                let row = vertical.sources[contribution]
                                // Neighbouring output rows share the source row between them.
                                if row != reducedRow {
                                    let pixels = source.baseAddress! + row * rowLength
                                    if onePerSample != nil {
                                        // Each sample one whole pixel (weight 1): the composed pixels are the sums.
                                        Self.compose(
                                            pixels, columns: columns, toLinear: toLinear, background: background, into: reduced.baseAddress!
                                        )
                                    } else {
                                        Self.compose(
                                            pixels, columns: columns, toLinear: toLinear, background: background,
                                            into: composed.baseAddress!)
                                        Self.reduce(
                                            composed.baseAddress!, firstColumn: columns.lowerBound, horizontal: horizontal,
                                            into: reduced.baseAddress!)
                                    }
                                    reducedRow = row
                                }
                                let weight = vertical.weights[contribution]
                                for index in 0..<(width * 3) {
                                    outputRow[index] += weight * reduced[index]
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `columns` of one source row (RGBA8) composed over `background`, as linear red, green and
    /// blue, into `composed` (three values a pixel, from `columns.lowerBound`).
    private static func compose(
        _ row: UnsafePointer<UInt8>, columns: Range<Int>, toLinear: UnsafeBufferPointer<Float>, background: LinearColor,
        into composed: UnsafeMutablePointer<Float>
    ) {
        let toLinear = toLinear.baseAddress!
        var pixel = row + columns.lowerBound * 4
        var target = composed
        for _ in columns {
            if pixel[3] == 255 {
                // Opaque: the same values as below, where alpha is 1 and the background's share 0.
                target[0] = toLinear[Int(pixel[0])]
                target[1] = toLinear[Int(pixel[1])]
                target[2] = toLinear[Int(pixel[2])]
            } else {
                let alpha = Float(pixel[3]) * (1 / 255)
                let inverse = 1 - alpha
                target[0] = toLinear[Int(pixel[0])] * alpha + background.red * inverse
                target[1] = toLinear[Int(pixel[1])] * alpha + background.green * inverse
                target[2] = toLinear[Int(pixel[2])] * alpha + background.blue * inverse
            }
            pixel += 4
            target += 3
        }
    }

    /// A composed row (from `firstColumn`) reduced to the destination's samples by `horizontal`'s weights.
    private static func reduce(
        _ composed: UnsafePointer<Float>, firstColumn: Int, horizontal: Contributions, into reduced: UnsafeMutablePointer<Float>
    ) {
        horizontal.ranges.withUnsafeBufferPointer { ranges in
            horizontal.sources.withUnsafeBufferPointer { sources in
                horizontal.weights.withUnsafeBufferPointer { weights in
                    for x in ranges.indices {
                        var red: Float = 0
                        var green: Float = 0
                        var blue: Float = 0
                        for contribution in ranges[x] {
                            let weight = weights[contribution]
                            let pixel = composed + (sources[contribution] - firstColumn) * 3
                            red += weight * pixel[0]
                            green += weight * pixel[1]
                            blue += weight * pixel[2]
                        }
                        reduced[x * 3] = red
                        reduced[x * 3 + 1] = green
                        reduced[x * 3 + 2] = blue
                    }
                }
            }
        }
    }

    /// For each destination sample, which source samples it covers and by what share (summing to 1).
    struct Contributions {
        var ranges: [Range<Int>]
        var sources: [Int]
        var weights: [Float]

        /// The first source sample when each destination sample is one whole source sample, the
        /// next one each time (a side kept at its size).
        var onePerSample: Int? {
            guard let first = sources.first, weights.allSatisfy({ $0 == 1 }) else { return nil }
            let stepping = ranges.indices.allSatisfy { ranges[$0] == $0..<($0 + 1) && sources[$0] == first + $0 }
            return stepping ? first : nil
        }
    }

    /// The contributions for `destination` samples spread over `length` source samples from `origin`
    /// (a part of a row or column of `source` samples, for a zoomed view).
    static func contributions(source: Int, from origin: Double = 0, length: Double? = nil, destination: Int) -> Contributions {
        var result = Contributions(ranges: [], sources: [], weights: [])
        let origin = min(max(0, origin), Double(source))
        let ratio = min(length ?? Double(source), Double(source) - origin) / Double(destination)
        for index in 0..<destination {
            let start = origin + Double(index) * ratio
            let end = min(Double(source), origin + Double(index + 1) * ratio)
            let first = result.sources.count
            var position = Int(start)
            while Double(position) < end, position < source {
                let covered = min(end, Double(position + 1)) - max(start, Double(position))
                if covered > 1e-9 {
                    result.sources.append(position)
                    result.weights.append(Float(covered / (end - start)))
                }
                position += 1
            }
            result.ranges.append(first..<result.sources.count)
        }
        return result
    }
}
