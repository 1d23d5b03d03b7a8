/// Turns an image into palette indices, with or without error diffusion.
///
/// Nearest colours are found through a table of 2¹⁸ entries (6 bits per channel) filled on first
/// use, so each distinct colour is searched for once, not once per pixel.
public struct PaletteMapper: Sendable {
    /// How the error of each pixel's nearest colour is spread.
    public enum Dithering: String, Sendable, CaseIterable {
        /// Each pixel takes its nearest colour; flat areas stay flat, gradients band.
        case none
        /// Floyd–Steinberg on alternating row directions, at `strength` of the full error.
        case diffusion
    }

    public let palette: [RGBColor]
    public var dithering: Dithering
    /// The share of each pixel's error passed on (0...1). A quarter breaks up the bands a
    /// 256-colour palette leaves in skies without the grain full diffusion gives small previews
    /// (measured in DECISIONS.md, "Sixel: a light dither").
    public var strength: Float

    public init(palette: [RGBColor], dithering: Dithering = .diffusion, strength: Float = 0.25) {
        precondition(!palette.isEmpty && palette.count <= 256, "a palette has 1 to 256 colours")
        self.palette = palette
        self.dithering = dithering
        self.strength = strength
    }

    /// One palette index per pixel, row by row.
    public func indices(for image: RGBImage) -> [UInt8] {
        var lookup = NearestColorTable(palette: palette)
        var output = [UInt8](repeating: 0, count: image.width * image.height)
        switch dithering {
        case .none:
            image.bytes.withUnsafeBufferPointer { bytes in
                for pixel in 0..<output.count {
                    output[pixel] = lookup.nearest(Int(bytes[pixel * 3]), Int(bytes[pixel * 3 + 1]), Int(bytes[pixel * 3 + 2]))
                }
            }
        case .diffusion:
            diffuse(image, into: &output, lookup: &lookup)
        }
        return output
    }

    /// Floyd–Steinberg, serpentine: errors in 1/16ths scaled by `strength`, two rows of them kept.
    private func diffuse(_ image: RGBImage, into output: inout [UInt8], lookup: inout NearestColorTable) {
        let width = image.width
        // Errors carry one spare column each side so the kernel never needs a bounds check.
        var current = [Int32](repeating: 0, count: (width + 2) * 3)
        var next = current
        let scale = Int32((strength * 256).rounded())
        let paletteBytes = palette.flatMap { [Int32($0.red), Int32($0.green), Int32($0.blue)] }
        image.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<image.height {
                let leftToRight = y % 2 == 0
                let step = leftToRight ? 1 : -1
                var x = leftToRight ? 0 : width - 1
                for _ in 0..<width {
                    let source = (y * width + x) * 3
                    let slot = (x + 1) * 3
                    let red = Self.clamp(Int32(bytes[source]) + current[slot] >> 4)
                    let green = Self.clamp(Int32(bytes[source + 1]) + current[slot + 1] >> 4)
                    let blue = Self.clamp(Int32(bytes[source + 2]) + current[slot + 2] >> 4)
                    let index = lookup.nearest(Int(red), Int(green), Int(blue))
                    output[y * width + x] = index
                    let chosen = Int(index) * 3
                    let redError = ((red - paletteBytes[chosen]) * scale) >> 8
                    let greenError = ((green - paletteBytes[chosen + 1]) * scale) >> 8
                    let blueError = ((blue - paletteBytes[chosen + 2]) * scale) >> 8
                    let ahead = slot + step * 3
                    let behind = slot - step * 3
                    current[ahead] += redError * 7
                    current[ahead + 1] += greenError * 7
                    current[ahead + 2] += blueError * 7
                    next[behind] += redError * 3
                    next[behind + 1] += greenError * 3
                    next[behind + 2] += blueError * 3
                    next[slot] += redError * 5
                    next[slot + 1] += greenError * 5
                    next[slot + 2] += blueError * 5
                    next[ahead] += redError
                    next[ahead + 1] += greenError
                    next[ahead + 2] += blueError
                    x += step
                }
                swap(&current, &next)
                for index in next.indices { next[index] = 0 }
            }
        }
    }

    @inline(__always)
    private static func clamp(_ value: Int32) -> Int32 { min(255, max(0, value)) }
}

/// The nearest palette colour of each 6-bit-per-channel colour, searched for on first use.
struct NearestColorTable {
    private let search: NearestColorSearch
    /// Index + 1, or 0 when not searched yet.
    private var table: [UInt16]

    init(palette: [RGBColor]) {
        search = NearestColorSearch(palette: palette)
        table = [UInt16](repeating: 0, count: 1 << 18)
    }

    @inline(__always)
    mutating func nearest(_ red: Int, _ green: Int, _ blue: Int) -> UInt8 {
        let key = (red >> 2) << 12 | (green >> 2) << 6 | blue >> 2
        let known = table[key]
        if known != 0 { return UInt8(known - 1) }
        // The search is for the centre of the 4×4×4 cell the colour falls in.
        let best = search.nearest(Int32(red & ~3 | 2), Int32(green & ~3 | 2), Int32(blue & ~3 | 2))
        table[key] = UInt16(best + 1)
        return UInt8(best)
    }
}

/// Finds a palette's nearest colour (weighted 3:4:2, as `PaletteQuantizer` weighs them) without
/// trying every entry: the palette is sorted by green, the search starts at the colour's own
/// green and walks outwards, and stops on each side once green alone is further than the best so far.
struct NearestColorSearch: Sendable {
    /// Red, green, blue and the palette index, ordered by green.
    private let entries: [(red: Int32, green: Int32, blue: Int32, index: Int)]

    init(palette: [RGBColor]) {
        entries = palette.enumerated().map { (Int32($0.element.red), Int32($0.element.green), Int32($0.element.blue), $0.offset) }
            .sorted { $0.green < $1.green }
    }

    func nearest(_ red: Int32, _ green: Int32, _ blue: Int32) -> Int {
        // The first entry whose green is not below the colour's.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].green < green { low = middle + 1 } else { high = middle }
        }
        var best = 0
        var bestDistance = Int32.max
        /// Tries the entry at `position`; false once green alone puts it (and all beyond it) too far.
        func tried(_ position: Int) -> Bool {
            let entry = entries[position]
            let dg = entry.green - green
            guard 4 * dg * dg < bestDistance else { return false }
            let dr = entry.red - red
            let db = entry.blue - blue
            let distance = 3 * dr * dr + 4 * dg * dg + 2 * db * db
            if distance < bestDistance || (distance == bestDistance && entry.index < best) {
                bestDistance = distance
                best = entry.index
            }
            return true
        }
        var up = low
        var down = low - 1
        while up < entries.count || down >= 0 {
            if up < entries.count { up = tried(up) ? up + 1 : entries.count }
            if down >= 0 { down = tried(down) ? down - 1 : -1 }
        }
        return best
    }
}
