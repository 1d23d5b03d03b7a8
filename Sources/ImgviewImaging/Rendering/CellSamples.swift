/// One cell's samples with what a pattern's colours and error are computed from in closed form.
///
/// Each sample is one vector: linear red, green and blue (lanes 0–2), perceptual luma, red, green
/// and blue less the cell's perceptual mean (lanes 3–6), and its weighted square distance from
/// that mean (lane 7). The sum of the vectors a mask covers gives that side's mean colour (lanes
/// 0–2) and its error against any colour (`error(of:count:against:)`) without visiting the
/// samples again; centring on the mean keeps the sums of squares small, so the closed form loses
/// nothing a per-sample sum would keep.
struct CellSamples {
    /// The error's weights: lightness counts most, since the eye (and a preview) reads tone before hue.
    private static let weights = SIMD8<Float>(0, 0, 0, 1, 0.2, 0.2, 0.2, 0)
    private(set) var samples: [SIMD8<Float>]
    /// The sum of every sample.
    private(set) var total = SIMD8<Float>()
    /// The cell's mean perceptual colour, in lanes 3–6.
    private var mean = SIMD8<Float>()

    init(count: Int) {
        samples = [SIMD8<Float>](repeating: SIMD8<Float>(), count: count)
    }

    var count: Int { samples.count }

    /// Reads the cell at `column`, `row` of `image`, `subColumns × subRows` samples a cell.
    mutating func load(_ image: LinearImage, column: Int, row: Int, subColumns: Int, subRows: Int) {
        var perceptualTotal = SIMD8<Float>()
        image.values.withUnsafeBufferPointer { values in
            samples.withUnsafeMutableBufferPointer { samples in
                for sy in 0..<subRows {
                    var index = ((row * subRows + sy) * image.width + column * subColumns) * 3
                    for sx in 0..<subColumns {
                        let color = LinearColor(red: values[index], green: values[index + 1], blue: values[index + 2])
                        let sample = Self.vector(color)
                        samples[sy * subColumns + sx] = sample
                        perceptualTotal += sample
                        index += 3
                    }
                }
            }
        }
        mean = Self.perceptualLanes(perceptualTotal / Float(samples.count))
        var total = SIMD8<Float>()
        let (mean, weights) = (mean, Self.weights)
        samples.withUnsafeMutableBufferPointer { samples in
            for index in samples.indices {
                var sample = samples[index] - mean
                let centred = sample * sample * weights
                sample[7] = centred.sum()
                samples[index] = sample
                total += sample
            }
        }
        self.total = total
    }

    /// The sum of the samples `mask` covers (bit `row * subColumns + column`).
    func sum(over mask: UInt64) -> SIMD8<Float> {
        var sum = SIMD8<Float>()
        var bits = mask
        samples.withUnsafeBufferPointer { samples in
            while bits != 0 {
                sum += samples[bits.trailingZeroBitCount]
                bits &= bits - 1
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
        Self.perceptualLanes(Self.vector(color)) - mean
    }

    /// The error of drawing `count` samples whose sum is `sum` in one colour (from `target(_:)`):
    /// the sum over them of the squared perceptual distance, luma weighted 1 and each channel 0.2.
    static func error(of sum: SIMD8<Float>, count: Int, against target: SIMD8<Float>) -> Float {
        guard count > 0 else { return 0 }
        let weighted = target * weights
        return sum[7] - 2 * (weighted * sum).sum() + Float(count) * (weighted * target).sum()
    }

    private static func vector(_ color: LinearColor) -> SIMD8<Float> {
        SIMD8<Float>(
            color.red, color.green, color.blue, SRGB.perceptual(fromLinear: color.luminance), SRGB.perceptual(fromLinear: color.red),
            SRGB.perceptual(fromLinear: color.green), SRGB.perceptual(fromLinear: color.blue), 0)
    }

    private static func perceptualLanes(_ vector: SIMD8<Float>) -> SIMD8<Float> {
        SIMD8<Float>(0, 0, 0, vector[3], vector[4], vector[5], vector[6], 0)
    }
}
