/// Chooses a palette that represents one image: median cut over a histogram, refined by k-means.
///
/// The histogram has 5 bits per channel, and each bin keeps the mean of the colours that fell
/// in it, so an image with few colours gets them exactly. Median cut splits the box of colours
/// with the largest weighted spread at its median; a few k-means passes over the bins then
/// move each colour to the centre of what it stands for, which lowers the error median cut
/// leaves behind on photographs.
public struct PaletteQuantizer: Sendable {
    public var maximumColors: Int
    public var refinementPasses: Int

    public init(maximumColors: Int = 256, refinementPasses: Int = 2) {
        self.maximumColors = max(1, maximumColors)
        self.refinementPasses = refinementPasses
    }

    /// Up to `maximumColors` colours, no two alike.
    public func palette(for image: RGBImage) -> [RGBColor] {
        var bins = Self.histogram(of: image)
        var boxes = [Box(range: 0..<bins.count, bins: bins)]
        while boxes.count < maximumColors {
            guard let widest = boxes.indices.max(by: { boxes[$0].spread < boxes[$1].spread }), boxes[widest].spread > 0 else { break }
            let box = boxes[widest]
            let (low, high) = box.split(&bins)
            boxes[widest] = Box(range: low, bins: bins)
            boxes.append(Box(range: high, bins: bins))
        }
        var centres = boxes.map(\.mean)
        for _ in 0..<refinementPasses { centres = Self.refined(centres, bins: bins) }
        var seen = Set<RGBColor>()
        return centres.map(\.rgb).filter { seen.insert($0).inserted }
    }

    /// One histogram bin: how many pixels fell in it and the sum of their channels.
    struct Bin {
        var count: Int
        var red: Int
        var green: Int
        var blue: Int

        var mean: Centre {
            Centre(red: Float(red) / Float(count), green: Float(green) / Float(count), blue: Float(blue) / Float(count))
        }
    }

    /// A colour being chosen, in sRGB units 0...255 as floats.
    struct Centre {
        var red: Float
        var green: Float
        var blue: Float

        var rgb: RGBColor {
            RGBColor(
                red: UInt8(min(255, max(0, red.rounded()))), green: UInt8(min(255, max(0, green.rounded()))),
                blue: UInt8(min(255, max(0, blue.rounded()))))
        }
    }

    /// Channel weights for spreads and distances (`NearestColorSearch` uses the same 3:4:2): the eye
    /// tells greens apart best and blues least.
    static let redWeight: Float = 3
    static let greenWeight: Float = 4
    static let blueWeight: Float = 2

    /// A run of bins (a slice of the shared array) with its weighted mean and spread.
    struct Box {
        var range: Range<Int>
        var mean: Centre
        /// Weighted sum of squared distances from the mean along the widest channel.
        var spread: Float
        var axis: Int

        init(range: Range<Int>, bins: [Bin]) {
            self.range = range
            var count = 0
            var sums = (0, 0, 0)
            for bin in bins[range] {
                count += bin.count
                sums.0 += bin.red
                sums.1 += bin.green
                sums.2 += bin.blue
            }
            mean = Centre(red: Float(sums.0) / Float(count), green: Float(sums.1) / Float(count), blue: Float(sums.2) / Float(count))
            var variance: (Float, Float, Float) = (0, 0, 0)
            for bin in bins[range] {
                let centre = bin.mean
                let weight = Float(bin.count)
                variance.0 += weight * (centre.red - mean.red) * (centre.red - mean.red)
                variance.1 += weight * (centre.green - mean.green) * (centre.green - mean.green)
                variance.2 += weight * (centre.blue - mean.blue) * (centre.blue - mean.blue)
            }
            let weighted = (
                variance.0 * PaletteQuantizer.redWeight, variance.1 * PaletteQuantizer.greenWeight,
                variance.2 * PaletteQuantizer.blueWeight
            )
            if weighted.0 >= weighted.1, weighted.0 >= weighted.2 {
                axis = 0
                spread = weighted.0
            } else if weighted.1 >= weighted.2 {
                axis = 1
                spread = weighted.1
            } else {
                axis = 2
                spread = weighted.2
            }
            if range.count < 2 { spread = 0 }
        }

        /// Sorts the box's bins along its axis and cuts them where half the pixels lie on each side.
        func split(_ bins: inout [Bin]) -> (Range<Int>, Range<Int>) {
            // Each bin's mean on the axis, computed once, above its position: sorting the packed
            // values orders the bins by mean, ties in their order so far. A non-negative float's
            // bits order as the float does.
            let axis = self.axis
            var order = bins[range].enumerated().map { position, bin -> UInt64 in
                let sum = axis == 0 ? bin.red : axis == 1 ? bin.green : bin.blue
                let mean = Float(sum) / Float(bin.count)
                return UInt64(mean.bitPattern) << 32 | UInt64(position)
            }
            order.sort()
            let sorted = order.map { bins[range.lowerBound + Int($0 & 0xFFFF_FFFF)] }
            bins.replaceSubrange(range, with: sorted)
            let total = bins[range].reduce(0) { $0 + $1.count }
            var seen = 0
            var cut = range.lowerBound + 1
            for index in range {
                seen += bins[index].count
                if seen * 2 >= total {
                    cut = index + 1
                    break
                }
            }
            cut = min(max(cut, range.lowerBound + 1), range.upperBound - 1)
            return (range.lowerBound..<cut, cut..<range.upperBound)
        }
    }

    /// The non-empty bins of a 32×32×32 histogram.
    static func histogram(of image: RGBImage) -> [Bin] {
        var bins = [Bin](repeating: Bin(count: 0, red: 0, green: 0, blue: 0), count: 32 * 32 * 32)
        image.bytes.withUnsafeBufferPointer { bytes in
            bins.withUnsafeMutableBufferPointer { bins in
                for index in stride(from: 0, to: bytes.count, by: 3) {
                    let (red, green, blue) = (Int(bytes[index]), Int(bytes[index + 1]), Int(bytes[index + 2]))
                    let key = (red >> 3) << 10 | (green >> 3) << 5 | blue >> 3
                    bins[key].count += 1
                    bins[key].red += red
                    bins[key].green += green
                    bins[key].blue += blue
                }
            }
        }
        return bins.filter { $0.count > 0 }
    }

    /// One k-means pass: each bin goes to its nearest centre, each centre to the mean of its bins.
    static func refined(_ centres: [Centre], bins: [Bin]) -> [Centre] {
        var sums = [(count: Int, red: Int, green: Int, blue: Int)](repeating: (0, 0, 0, 0), count: centres.count)
        let search = NearestColorSearch(palette: centres.map(\.rgb))
        for bin in bins {
            let colour = bin.mean.rgb
            let best = search.nearest(Int32(colour.red), Int32(colour.green), Int32(colour.blue))
            sums[best].count += bin.count
            sums[best].red += bin.red
            sums[best].green += bin.green
            sums[best].blue += bin.blue
        }
        return centres.indices.map { index in
            let sum = sums[index]
            guard sum.count > 0 else { return centres[index] }
            return Centre(
                red: Float(sum.red) / Float(sum.count), green: Float(sum.green) / Float(sum.count), blue: Float(sum.blue) / Float(sum.count)
            )
        }
    }
}
