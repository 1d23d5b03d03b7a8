/// Shrinks an image that a decoder delivers row by row, holding only what the output needs.
///
/// A decoder gives it each RGBA8 row as it decodes it; each source pixel falls into one output
/// pixel of a whole-number reduction (`factor` × `factor` source pixels per output pixel),
/// averaged in linear light with alpha weighting. Memory is the output, never the image's
/// declared size, so a huge image costs what its preview costs. Pixels that never arrive (a
/// truncated file) count as transparent. With a factor of 1 the rows are copied as they are.
///
/// Rows `inOrder` (top to bottom or bottom to top, as most formats store them) need sums for one
/// output row only, written out as the rows move past it; rows in `anyOrder` (interlaced passes,
/// which also bring only some columns of a row at a time) keep sums for the whole output until
/// `finish` (16 bytes an output pixel, four times the output itself).
public struct RowDownscaler {
    /// How a decoder hands its rows over.
    public enum RowOrder: Sendable {
        /// Each row whole and once, top to bottom or bottom to top (rows may be skipped).
        case inOrder
        /// Rows in any order, or in parts (an interlaced pass's columns).
        case anyOrder
    }

    public let sourceWidth: Int
    public let sourceHeight: Int
    /// Source pixels per output pixel along each side.
    public let factor: Int
    public let width: Int
    public let height: Int
    public let order: RowOrder
    /// Per output pixel (of the open row only, for rows in order): linear red, green and blue
    /// weighted by alpha, and alpha (factor > 1 only).
    private var sums: [Float]
    /// The output row `sums` holds, for rows in order.
    private var openRow: Int?
    /// Output rows written out already, for rows in order: a row that comes back for one is dropped.
    private var closedRows: [Bool]
    /// The output bytes: rows copied at factor 1, rows written out from their sums in order.
    private var output: [UInt8]

    /// A downscaler to the smallest whole-number reduction of `sourceWidth` × `sourceHeight` that
    /// still covers `minimum` (upright or stored, as the caller's decoder stores it); full size when nil.
    public init(sourceWidth: Int, sourceHeight: Int, covering minimum: (width: Int, height: Int)?, order: RowOrder) {
        self.init(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight,
            factor: Self.reduction(sourceWidth: sourceWidth, sourceHeight: sourceHeight, covering: minimum), order: order)
    }

    /// A downscaler by `factor` (at least 1), as `PixelReducer` reduces a whole image.
    public init(sourceWidth: Int, sourceHeight: Int, factor: Int, order: RowOrder) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        let factor = max(1, factor)
        self.factor = factor
        self.order = order
        width = (sourceWidth + factor - 1) / factor
        height = (sourceHeight + factor - 1) / factor
        let summing = factor > 1
        let whole = !summing || order == .inOrder
        sums = summing ? [Float](repeating: 0, count: width * (order == .inOrder ? 1 : height) * 4) : []
        closedRows = summing && order == .inOrder ? [Bool](repeating: false, count: height) : []
        output = whole ? [UInt8](repeating: 0, count: width * height * 4) : []
    }

    /// The largest whole-number reduction of `sourceWidth` × `sourceHeight` that still covers `minimum`.
    public static func reduction(sourceWidth: Int, sourceHeight: Int, covering minimum: (width: Int, height: Int)?) -> Int {
        guard let minimum else { return 1 }
        return max(1, min(sourceWidth / max(1, minimum.width), sourceHeight / max(1, minimum.height)))
    }

    /// Adds row `y` of the source: `pixels` holds the whole row (RGBA8, `sourceWidth` pixels), of
    /// which the columns `firstColumn`, `firstColumn + step`, … are taken (an interlaced pass, in
    /// any order only).
    public mutating func add(row y: Int, pixels: UnsafeBufferPointer<UInt8>, firstColumn: Int = 0, step: Int = 1) {
        guard y >= 0, y < sourceHeight, pixels.count >= sourceWidth * 4, step > 0 else { return }
        if factor == 1 {
            output.withUnsafeMutableBufferPointer { output in
                let row = output.baseAddress! + y * width * 4
                guard step > 1 || firstColumn > 0 else {
                    row.update(from: pixels.baseAddress!, count: sourceWidth * 4)
                    return
                }
                var x = firstColumn
                while x < sourceWidth {
                    for channel in 0..<4 { row[x * 4 + channel] = pixels[x * 4 + channel] }
                    x += step
                }
            }
            return
        }
        var sumsRow = y / factor
        if order == .inOrder {
            if openRow != sumsRow {
                // A decoder that broke its order (damaged data): what was written out stays.
                guard !closedRows[sumsRow] else { return }
                closeOpenRow()
                openRow = sumsRow
            }
            sumsRow = 0
        }
        let toLinear = SRGB.toLinear
        let start = sumsRow * width * 4
        let factor = factor
        sums.withUnsafeMutableBufferPointer { sums in
            toLinear.withUnsafeBufferPointer { toLinear in
                var x = firstColumn
                while x < sourceWidth {
                    let source = x * 4
                    let alpha = Float(pixels[source + 3]) * (1 / 255)
                    if alpha > 0 {
                        let target = start + (x / factor) * 4
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
    /// The downscaler gives its bytes away: call it once, last.
    public mutating func finish() -> PixelBuffer {
        if factor > 1 {
            switch order {
            case .inOrder:
                closeOpenRow()
                sums = []
                closedRows = []
            case .anyOrder:
                output = [UInt8](repeating: 0, count: width * height * 4)
                for outputY in 0..<height { write(sumsRow: outputY, to: outputY) }
                sums = []
            }
        }
        let pixels = PixelBuffer(width: width, height: height, bytes: output)
        output = []
        return pixels
    }

    /// Writes the open row out from its sums, which start again from zero.
    private mutating func closeOpenRow() {
        guard let openRow else { return }
        write(sumsRow: 0, to: openRow)
        closedRows[openRow] = true
        for index in sums.indices { sums[index] = 0 }
        self.openRow = nil
    }

    /// Output row `outputY` from the sums at row `sumsRow`: each pixel's mean.
    private mutating func write(sumsRow: Int, to outputY: Int) {
        // The last row and column of blocks may cover fewer source pixels.
        let rows = min(factor, sourceHeight - outputY * factor)
        let (width, factor, sourceWidth) = (width, factor, sourceWidth)
        sums.withUnsafeBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { output in
                for outputX in 0..<width {
                    let columns = min(factor, sourceWidth - outputX * factor)
                    let sum = (sumsRow * width + outputX) * 4
                    let alpha = sums[sum + 3]
                    guard alpha > 0 else { continue }
                    let index = (outputY * width + outputX) * 4
                    output[index] = SRGB.byte(fromLinear: sums[sum] / alpha)
                    output[index + 1] = SRGB.byte(fromLinear: sums[sum + 1] / alpha)
                    output[index + 2] = SRGB.byte(fromLinear: sums[sum + 2] / alpha)
                    output[index + 3] = UInt8(min(255, (alpha / Float(rows * columns) * 255).rounded()))
                }
            }
        }
    }
}
