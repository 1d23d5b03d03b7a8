#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scales pixels for a pixel preview: Lanczos-3 in linear light, transparency composed over a
/// background first.
///
/// Text previews average areas (`AreaScaler`), which suits cells; a pixel preview is looked at
/// pixel by pixel, and area averaging after the decoder's own DCT scaling left it visibly soft
/// (screenshot SSIM 0.95 against chafa's 0.98, DECISIONS.md). Lanczos keeps edges where they are.
public struct LanczosScaler: Sendable {
    public var background: RGBColor

    public init(background: RGBColor) {
        self.background = background
    }

    public func scale(_ pixels: PixelBuffer, toWidth width: Int, height: Int) -> RGBImage {
        let horizontal = Self.taps(source: pixels.width, destination: width)
        let vertical = Self.taps(source: pixels.height, destination: height)
        let toLinear = SRGB.toLinear
        let back = background.linear
        // Rows composed and scaled across first: the source height × the output width.
        var across = [Float](repeating: 0, count: pixels.height * width * 3)
        pixels.bytes.withUnsafeBufferPointer { source in
            across.withUnsafeMutableBufferPointer { across in
                var row = [Float](repeating: 0, count: pixels.width * 3)
                for y in 0..<pixels.height {
                    let start = y * pixels.width * 4
                    for x in 0..<pixels.width {
                        let index = start + x * 4
                        let alpha = Float(source[index + 3]) * (1 / 255)
                        row[x * 3] = toLinear[Int(source[index])] * alpha + back.red * (1 - alpha)
                        row[x * 3 + 1] = toLinear[Int(source[index + 1])] * alpha + back.green * (1 - alpha)
                        row[x * 3 + 2] = toLinear[Int(source[index + 2])] * alpha + back.blue * (1 - alpha)
                    }
                    let output = y * width * 3
                    for x in 0..<width {
                        var (red, green, blue): (Float, Float, Float) = (0, 0, 0)
                        for tap in horizontal.ranges[x] {
                            let weight = horizontal.weights[tap]
                            let from = horizontal.sources[tap] * 3
                            red += weight * row[from]
                            green += weight * row[from + 1]
                            blue += weight * row[from + 2]
                        }
                        across[output + x * 3] = red
                        across[output + x * 3 + 1] = green
                        across[output + x * 3 + 2] = blue
                    }
                }
            }
        }
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        var scratch = [Float](repeating: 0, count: width * 3)
        across.withUnsafeBufferPointer { across in
            bytes.withUnsafeMutableBufferPointer { bytes in
                let rowLength = width * 3
                for y in 0..<height {
                    let output = y * rowLength
                    for tap in vertical.ranges[y] {
                        let weight = vertical.weights[tap]
                        let from = vertical.sources[tap] * rowLength
                        for index in 0..<rowLength { scratch[index] += weight * across[from + index] }
                    }
                    for index in 0..<rowLength {
                        bytes[output + index] = SRGB.byte(fromLinear: scratch[index])
                        scratch[index] = 0
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, bytes: bytes)
    }

    /// For each output sample, the source samples it reads and their weights (summing to 1).
    static func taps(source: Int, destination: Int) -> AreaScaler.Contributions {
        var result = AreaScaler.Contributions(ranges: [], sources: [], weights: [])
        let ratio = Double(source) / Double(destination)
        // Scaling down, the kernel widens with the ratio so every source pixel counts.
        let stretch = max(1, ratio)
        let support = 3 * stretch
        for index in 0..<destination {
            let centre = (Double(index) + 0.5) * ratio - 0.5
            let first = result.sources.count
            let low = max(0, Int((centre - support).rounded(.up)))
            let high = min(source - 1, Int((centre + support).rounded(.down)))
            var total: Double = 0
            var weights: [Double] = []
            for position in low...max(low, high) {
                let weight = lanczos((Double(position) - centre) / stretch)
                weights.append(weight)
                total += weight
            }
            for (offset, weight) in weights.enumerated() where weight != 0 {
                result.sources.append(low + offset)
                result.weights.append(Float(total == 0 ? 1 : weight / total))
            }
            if result.sources.count == first {
                result.sources.append(min(source - 1, max(0, Int(centre.rounded()))))
                result.weights.append(1)
            }
            result.ranges.append(first..<result.sources.count)
        }
        return result
    }

    private static func lanczos(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        let pix = Double.pi * x
        return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
    }
}
