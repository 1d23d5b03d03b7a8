/// Shrinks an image that a decoder delivers row by row, holding only what the output needs.
///
/// A decoder gives it each RGBA8 row as it decodes it (in any order, and for interlaced images
/// only some columns of a row at a time); each source pixel falls into one output pixel of a
/// whole-number reduction (`factor` × `factor` source pixels per output pixel), averaged in
/// linear light with alpha weighting. Memory is the output's accumulators, never the image's
/// declared size, so a huge image costs what its preview costs. Pixels that never arrive (a
/// truncated file) count as transparent. With a factor of 1 the rows are copied as they are.
public struct RowDownscaler {
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// Source pixels per output pixel along each side.
    public let factor: Int
    public let width: Int
    public let height: Int
    /// Per output pixel: linear red, green and blue weighted by alpha, and alpha (factor > 1 only).
    private var sums: [Float]
    /// The output bytes when the factor is 1.
    private var copy: [UInt8]

    /// A downscaler to the smallest whole-number reduction of `sourceWidth` × `sourceHeight` that
    /// still covers `minimum` (upright or stored, as the caller's decoder stores it); full size when nil.
    public init(sourceWidth: Int, sourceHeight: Int, covering minimum: (width: Int, height: Int)?) {
        self.init(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight,
            factor: Self.reduction(sourceWidth: sourceWidth, sourceHeight: sourceHeight, covering: minimum))
    }

    /// A downscaler by `factor` (at least 1), as `PixelReducer` reduces a whole image.
    public init(sourceWidth: Int, sourceHeight: Int, factor: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        let factor = max(1, factor)
        self.factor = factor
        width = (sourceWidth + factor - 1) / factor
        height = (sourceHeight + factor - 1) / factor
        sums = factor > 1 ? [Float](repeating: 0, count: width * height * 4) : []
        copy = factor > 1 ? [] : [UInt8](repeating: 0, count: width * height * 4)
    }

    /// The largest whole-number reduction of `sourceWidth` × `sourceHeight` that still covers `minimum`.
    public static func reduction(sourceWidth: Int, sourceHeight: Int, covering minimum: (width: Int, height: Int)?) -> Int {
        guard let minimum else { return 1 }
        return max(1, min(sourceWidth / max(1, minimum.width), sourceHeight / max(1, minimum.height)))
    }

    /// Adds row `y` of the source: `pixels` holds the whole row (RGBA8, `sourceWidth` pixels), of
    /// which the columns `firstColumn`, `firstColumn + step`, … are taken (an interlaced pass).
    public mutating func add(row y: Int, pixels: UnsafeBufferPointer<UInt8>, firstColumn: Int = 0, step: Int = 1) {
        guard y >= 0, y < sourceHeight, pixels.count >= sourceWidth * 4, step > 0 else { return }
        if factor == 1 {
            copy.withUnsafeMutableBufferPointer { output in
                let row = output.baseAddress! + y * width * 4
                var x = firstColumn
                while x < sourceWidth {
                    for channel in 0..<4 { row[x * 4 + channel] = pixels[x * 4 + channel] }
                    x += step
                }
            }
            return
        }
        let toLinear = SRGB.toLinear
        let outputRow = (y / factor) * width * 4
        let factor = factor
        sums.withUnsafeMutableBufferPointer { sums in
            toLinear.withUnsafeBufferPointer { toLinear in
                var x = firstColumn
                while x < sourceWidth {
                    let source = x * 4
                    let alpha = Float(pixels[source + 3]) * (1 / 255)
                    if alpha > 0 {
                        let target = outputRow + (x / factor) * 4
                        sums[target] += toLinear[Int(pixels[source])] * alpha
                        sums[target + 1] += toLinear[Int(pixels[source + 1])] * alpha
                        sums[target + 2] += toLinear[Int(pixels[source + 2])] * alpha
                        sums[target + 3] += alpha
                    }
                    x += step
                }
            }
        }
    }

    /// The reduced image: each pixel the mean of the source pixels it covers (straight alpha, sRGB).
    public func finish() -> PixelBuffer {
        guard factor > 1 else { return PixelBuffer(width: width, height: height, bytes: copy) }
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for outputY in 0..<height {
            // The last row and column of blocks may cover fewer source pixels.
            let rows = min(factor, sourceHeight - outputY * factor)
            for outputX in 0..<width {
                let columns = min(factor, sourceWidth - outputX * factor)
                let index = (outputY * width + outputX) * 4
                let alpha = sums[index + 3]
                guard alpha > 0 else { continue }
                bytes[index] = SRGB.byte(fromLinear: sums[index] / alpha)
                bytes[index + 1] = SRGB.byte(fromLinear: sums[index + 1] / alpha)
                bytes[index + 2] = SRGB.byte(fromLinear: sums[index + 2] / alpha)
                bytes[index + 3] = UInt8(min(255, (alpha / Float(rows * columns) * 255).rounded()))
            }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }
}
