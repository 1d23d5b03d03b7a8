/// Scales pixels to an exact size by area averaging in linear light, composing alpha over a background.
///
/// Every output sample is the mean of the source area it covers, pixels at the edges
/// counted by the fraction inside. Averaging sRGB values directly would darken every
/// edge and fine texture; linear light keeps the brightness a viewer sees.
public struct AreaScaler: Sendable {
    public var background: RGBColor

    public init(background: RGBColor = RGBColor(red: 0, green: 0, blue: 0)) {
        self.background = background
    }

    /// Scales `region` of `pixels` (all of them when nil), in pixels and fractions of them, to `width × height`.
    public func scale(_ pixels: PixelBuffer, region: Viewport.Region? = nil, toWidth width: Int, height: Int) -> LinearImage {
        let area = region ?? Viewport.Region(covering: pixels)
        let horizontal = Self.contributions(source: pixels.width, from: area.x, length: area.width, destination: width)
        let vertical = Self.contributions(source: pixels.height, from: area.y, length: area.height, destination: height)
        let background = background.linear
        var output = [Float](repeating: 0, count: width * height * 3)
        var cachedRow = [Float](repeating: 0, count: width * 3)
        // Through pointers: this runs for every pixel of every preview, and the array accesses'
        // checks were a third of it. The same sums in the same order as before.
        SRGB.toLinear.withUnsafeBufferPointer { toLinear in
            pixels.bytes.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { output in
                    cachedRow.withUnsafeMutableBufferPointer { cachedRow in
                        horizontal.withBuffers { horizontalRanges, horizontalSources, horizontalWeights in
                            // The source row composed over the background and reduced to `width` samples.
                            func reduceRow(_ row: Int) {
                                let rowStart = row * pixels.width * 4
                                for x in 0..<width {
                                    var red: Float = 0
                                    var green: Float = 0
                                    var blue: Float = 0
                                    for contribution in horizontalRanges[x] {
                                        let weight = horizontalWeights[contribution]
                                        let index = rowStart + horizontalSources[contribution] * 4
                                        let alpha = Float(source[index + 3]) * (1 / 255)
                                        let inverse = 1 - alpha
                                        red += weight * (toLinear[Int(source[index])] * alpha + background.red * inverse)
                                        green += weight * (toLinear[Int(source[index + 1])] * alpha + background.green * inverse)
                                        blue += weight * (toLinear[Int(source[index + 2])] * alpha + background.blue * inverse)
                                    }
                                    cachedRow[x * 3] = red
                                    cachedRow[x * 3 + 1] = green
                                    cachedRow[x * 3 + 2] = blue
                                }
                            }
                            var cachedRowIndex = -1
                            for y in 0..<height {
                                let outputStart = y * width * 3
                                for contribution in vertical.ranges[y] {
                                    let row = vertical.sources[contribution]
                                    if row != cachedRowIndex {
                                        reduceRow(row)
                                        cachedRowIndex = row
                                    }
                                    let weight = vertical.weights[contribution]
                                    for index in 0..<(width * 3) {
                                        output[outputStart + index] += weight * cachedRow[index]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return LinearImage(width: width, height: height, values: output)
    }

    /// For each destination sample, which source samples it covers and by what share (summing to 1).
    struct Contributions {
        var ranges: [Range<Int>]
        var sources: [Int]
        var weights: [Float]

        /// `body` given the three arrays' buffers.
        func withBuffers<T>(
            _ body: (UnsafeBufferPointer<Range<Int>>, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) throws -> T
        ) rethrows -> T {
            try ranges.withUnsafeBufferPointer { ranges in
                try sources.withUnsafeBufferPointer { sources in
                    try weights.withUnsafeBufferPointer { weights in try body(ranges, sources, weights) }
                }
            }
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
