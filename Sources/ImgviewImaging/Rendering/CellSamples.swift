/// One cell's samples with what a pattern's colours and error are computed from in closed form.
///
/// Each sample is one vector: linear red, green and blue (lanes 0–2), perceptual luma, red, green
/// and blue less the cell's perceptual mean (lanes 3–6), and its weighted square distance from
/// that mean (lane 7). The sum of the vectors a mask covers gives that side's mean colour (lanes
/// 0–2) and its error against any colour (`error(of:count:against:)`) without visiting the
/// samples again; centring on the mean keeps the sums of squares small, so the closed form loses
/// nothing a per-sample sum would keep. The sums over rectangles of samples come from a table of
/// running sums (`sum(over:)` with `SampleRectangles`), a few vectors a pattern whatever its size.
struct CellSamples {
    /// The error's weights: lightness counts most, since the eye (and a preview) reads tone before hue.
    private static let weights = SIMD8<Float>(0, 0, 0, 1, 0.2, 0.2, 0.2, 0)
    let columns: Int
    let rows: Int
    private(set) var samples: [SIMD8<Float>]
    /// Entry `row * (columns + 1) + column`: the sum of the samples above `row` and left of
    /// `column`, so the first row and column are zero and the last entry is the cell's total.
    private var runningSums: [SIMD8<Float>]
    /// The sum of every sample.
    private(set) var total = SIMD8<Float>()
    /// The cell's mean perceptual colour, in lanes 3–6.
    private var mean = SIMD8<Float>()
    private let perceptualTable = SRGB.perceptualTable

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        samples = [SIMD8<Float>](repeating: SIMD8<Float>(), count: columns * rows)
        runningSums = [SIMD8<Float>](repeating: SIMD8<Float>(), count: (columns + 1) * (rows + 1))
    }

    var count: Int { samples.count }

    /// Reads the cell at `column`, `row` of `image`, `columns × rows` samples a cell.
    mutating func load(_ image: LinearImage, column: Int, row: Int) {
        let (columns, rows) = (columns, rows)
        var perceptualTotal = SIMD8<Float>()
        image.values.withUnsafeBufferPointer { values in
            perceptualTable.withUnsafeBufferPointer { table in
                samples.withUnsafeMutableBufferPointer { samples in
                    for sy in 0..<rows {
                        var index = ((row * rows + sy) * image.width + column * columns) * 3
                        for sx in 0..<columns {
                            let sample = Self.vector(red: values[index], green: values[index + 1], blue: values[index + 2], table: table)
                            samples[sy * columns + sx] = sample
                            perceptualTotal += sample
                            index += 3
                        }
                    }
                }
            }
        }
        mean = Self.perceptualLanes(perceptualTotal / Float(samples.count))
        var total = SIMD8<Float>()
        let (mean, weights) = (mean, Self.weights)
        samples.withUnsafeMutableBufferPointer { samples in
            runningSums.withUnsafeMutableBufferPointer { sums in
                let stride = columns + 1
                for sy in 0..<rows {
                    var rowSum = SIMD8<Float>()
                    for sx in 0..<columns {
                        let index = sy * columns + sx
                        var sample = samples[index] - mean
                        let centred = sample * sample * weights
                        sample[7] = centred.sum()
                        samples[index] = sample
                        total += sample
                        rowSum += sample
                        sums[(sy + 1) * stride + sx + 1] = sums[sy * stride + sx + 1] + rowSum
                    }
                }
            }
        }
        self.total = total
    }

    /// The sum of the samples of pattern `pattern` of `rectangles` (made for this cell's grid).
    func sum(over rectangles: SampleRectangles, pattern: Int) -> SIMD8<Float> {
        var sum = SIMD8<Float>()
        runningSums.withUnsafeBufferPointer { sums in
            rectangles.corners.withUnsafeBufferPointer { corners in
                for index in rectangles.ranges[pattern] {
                    let corner = corners[index]
                    sum += (sums[corner.bottomRight] - sums[corner.topRight]) - (sums[corner.bottomLeft] - sums[corner.topLeft])
                }
            }
        }
        return sum
    }

    /// The mean linear colour of `count` samples whose sum is `sum`.
    static func meanColor(of sum: SIMD8<Float>, count: Int) -> LinearColor {
        LinearColor(red: sum[0] / Float(count), green: sum[1] / Float(count), blue: sum[2] / Float(count))
    }

    /// `color` for `error(of:count:against:)`.
    func target(_ color: LinearColor) -> SIMD8<Float> {
        perceptualTable.withUnsafeBufferPointer { table in
            Self.perceptualLanes(Self.vector(red: color.red, green: color.green, blue: color.blue, table: table)) - mean
        }
    }

    /// The error of drawing `count` samples whose sum is `sum` in one colour (from `target(_:)`):
    /// the sum over them of the squared perceptual distance, luma weighted 1 and each channel 0.2.
    static func error(of sum: SIMD8<Float>, count: Int, against target: SIMD8<Float>) -> Float {
        guard count > 0 else { return 0 }
        let weighted = target * weights
        return sum[7] - 2 * (weighted * sum).sum() + Float(count) * (weighted * target).sum()
    }

    @inline(__always)
    private static func vector(red: Float, green: Float, blue: Float, table: UnsafeBufferPointer<Float>) -> SIMD8<Float> {
        let luminance = LinearColor(red: red, green: green, blue: blue).luminance
        let perceptual = SRGB.perceptual(fromLinear: SIMD4(luminance, red, green, blue), table: table.baseAddress!)
        return SIMD8<Float>(
            lowHalf: SIMD4(red, green, blue, perceptual[0]), highHalf: SIMD4(perceptual[1], perceptual[2], perceptual[3], 0))
    }

    private static func perceptualLanes(_ vector: SIMD8<Float>) -> SIMD8<Float> {
        SIMD8<Float>(0, 0, 0, vector[3], vector[4], vector[5], vector[6], 0)
    }
}

/// Each pattern of a symbol set as rectangles of samples, for `CellSamples.sum(over:pattern:)`.
///
/// Every block character is one or two rectangles of its grid (a half, a quadrant, three
/// quadrants as a half and a quadrant, an eighth); the sum over a rectangle is four entries of
/// the cell's running sums, where a sum over the mask's bits adds up to 64 samples.
struct SampleRectangles {
    /// The running-sum entries at a rectangle's corners (each just outside it above and left).
    struct Corners {
        let topLeft: Int
        let topRight: Int
        let bottomLeft: Int
        let bottomRight: Int
    }

    /// Per pattern, its rectangles in `corners`.
    let ranges: [Range<Int>]
    let corners: [Corners]

    /// The rectangles of `masks` on a grid of `columns × rows` samples (bit `row * columns + column`).
    init(masks: [UInt64], columns: Int, rows: Int) {
        var ranges: [Range<Int>] = []
        var corners: [Corners] = []
        let stride = columns + 1
        for mask in masks {
            let first = corners.count
            var remaining = mask
            // The first sample left, stretched right along its row, then down while the rows below
            // have the same run; repeated until the mask is covered.
            while remaining != 0 {
                let start = remaining.trailingZeroBitCount
                let (top, left) = (start / columns, start % columns)
                var right = left
                while right < columns, remaining & Self.bit(row: top, column: right, columns: columns) != 0 { right += 1 }
                let run = (left..<right).reduce(UInt64(0)) { $0 | Self.bit(row: top, column: $1, columns: columns) }
                var bottom = top + 1
                while bottom < rows, remaining & (run << UInt64(columns * (bottom - top))) == run << UInt64(columns * (bottom - top)) {
                    bottom += 1
                }
                for row in top..<bottom { remaining &= ~(run << UInt64(columns * (row - top))) }
                corners.append(
                    Corners(
                        topLeft: top * stride + left, topRight: top * stride + right, bottomLeft: bottom * stride + left,
                        bottomRight: bottom * stride + right))
            }
            ranges.append(first..<corners.count)
        }
        self.ranges = ranges
        self.corners = corners
    }

    private static func bit(row: Int, column: Int, columns: Int) -> UInt64 {
        1 << UInt64(row * columns + column)
    }
}
