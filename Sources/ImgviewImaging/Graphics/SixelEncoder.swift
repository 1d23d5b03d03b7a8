import ImgviewSupport

/// Encodes an image as DEC sixel graphics: a palette chosen for this image, dithered, and the
/// bands written so that a terminal parses them fast.
///
/// Per band of six rows, each colour present is written once, from its first to its last
/// column, with runs compressed (`!n`); colours a band does not use cost nothing. The raster
/// attributes give the size and a 1:1 pixel aspect, and background pixels are left alone
/// (`P2=1`), so the image is drawn exactly as large as it was scaled.
public struct SixelEncoder: Sendable {
    /// Colour registers to use: the terminal's count when it said (XTSMGRAPHICS), at most 256.
    public var colorRegisters: Int
    public var dithering: PaletteMapper.Dithering
    /// Wrap the sequence for tmux (see `TerminalRoute`).
    public var passthrough: Bool
    /// The colour of register 0, when given: what a terminal fills the part of the image's raster
    /// no pixel is set in with when the sequence does not keep the background (P2 = 0), as tmux
    /// writes its own copy of a sixel image to its terminal. The background there is invisible.
    public var registerZero: RGBColor?

    public init(
        colorRegisters: Int = 256, dithering: PaletteMapper.Dithering = .diffusion, passthrough: Bool = false,
        registerZero: RGBColor? = nil
    ) {
        self.colorRegisters = min(256, max(2, colorRegisters))
        self.dithering = dithering
        self.passthrough = passthrough
        self.registerZero = registerZero
    }

    /// The whole sixel sequence, from DCS to ST.
    public func encode(_ image: RGBImage) -> [UInt8] {
        // Registers are set in percent, so choose among the colours the terminal can show.
        let zero = registerZero.map { [Self.percentRounded($0)] } ?? []
        let palette = PaletteQuantizer(maximumColors: colorRegisters - zero.count).palette(for: image).map(Self.percentRounded)
        var unique = Set(zero)
        let registers = zero + palette.filter { unique.insert($0).inserted }
        let indices = PaletteMapper(palette: registers, dithering: dithering).indices(for: image)
        return TerminalRoute(passthrough: passthrough)
            .wrap(Self.sequence(width: image.width, height: image.height, palette: registers, indices: indices))
    }

    /// The sixel sequence for an image already mapped to `palette`.
    public static func sequence(width: Int, height: Int, palette: [RGBColor], indices: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(width * height / 3 + palette.count * 16 + 64)
        // P2=1: pixels left at 0 keep the background; then the raster attributes, 1:1 and the size.
        output += ControlString.dcs.opening + Array("0;1;0q\"1;1;\(width);\(height)".utf8)
        for (index, colour) in palette.enumerated() {
            output += Array("#\(index);2;\(percent(colour.red));\(percent(colour.green));\(percent(colour.blue))".utf8)
        }
        // Per colour, the six bits of each column in the current band.
        var bits = [UInt8](repeating: 0, count: palette.count * width)
        var first = [Int](repeating: Int.max, count: palette.count)
        var last = [Int](repeating: -1, count: palette.count)
        var used: [Int] = []
        indices.withUnsafeBufferPointer { indices in
            bits.withUnsafeMutableBufferPointer { bits in
                for top in stride(from: 0, to: height, by: 6) {
                    for row in top..<min(top + 6, height) {
                        let bit = UInt8(1) << (row - top)
                        for x in 0..<width {
                            let colour = Int(indices[row * width + x])
                            if last[colour] < 0 { used.append(colour) }
                            bits[colour * width + x] |= bit
                            first[colour] = min(first[colour], x)
                            last[colour] = max(last[colour], x)
                        }
                    }
                    for (position, colour) in used.enumerated() {
                        output.append(UInt8(ascii: "#"))
                        appendNumber(colour, to: &output)
                        appendRun(of: 63, count: first[colour], to: &output)
                        var x = first[colour]
                        let row = colour * width
                        while x <= last[colour] {
                            let value = bits[row + x]
                            var end = x + 1
                            while end <= last[colour], bits[row + end] == value { end += 1 }
                            appendRun(of: 63 + value, count: end - x, to: &output)
                            x = end
                        }
                        // `$` goes back to the band's first column for the next colour; `-` to the next band.
                        if position < used.count - 1 {
                            output.append(UInt8(ascii: "$"))
                        } else if top + 6 < height {
                            output.append(UInt8(ascii: "-"))
                        }
                        for column in first[colour]...last[colour] { bits[row + column] = 0 }
                        first[colour] = Int.max
                        last[colour] = -1
                    }
                    used.removeAll(keepingCapacity: true)
                }
            }
        }
        output += ControlString.dcs.closing()
        return output
    }

    /// `count` copies of the sixel `character`, as `!count` when that is shorter.
    @inline(__always)
    private static func appendRun(of character: UInt8, count: Int, to output: inout [UInt8]) {
        if count > 3 {
            output.append(UInt8(ascii: "!"))
            appendNumber(count, to: &output)
            output.append(character)
        } else {
            for _ in 0..<count { output.append(character) }
        }
    }

    /// `number` (not negative) in decimal digits.
    @inline(__always)
    private static func appendNumber(_ number: Int, to output: inout [UInt8]) {
        if number >= 10 { appendNumber(number / 10, to: &output) }
        output.append(UInt8(ascii: "0") + UInt8(number % 10))
    }

    private static func percent(_ channel: UInt8) -> Int { (Int(channel) * 100 + 127) / 255 }

    /// The colour a register set in whole percent really shows.
    public static func percentRounded(_ colour: RGBColor) -> RGBColor {
        func rounded(_ channel: UInt8) -> UInt8 { UInt8((percent(channel) * 255 + 50) / 100) }
        return RGBColor(red: rounded(colour.red), green: rounded(colour.green), blue: rounded(colour.blue))
    }
}
