/// The xterm 16- and 256-colour palettes and the perceptually nearest entry for a colour.
public struct XtermPalette: Sendable {
    /// xterm's default values for the 16 system colours.
    public static let systemColors: [RGBColor] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ].map { RGBColor(red: $0.0, green: $0.1, blue: $0.2) }

    /// The colour of xterm-256 entry `index`.
    public static func color(at index: Int) -> RGBColor {
        if index < 16 { return systemColors[index] }
        if index < 232 {
            let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
            let cube = index - 16
            return RGBColor(red: levels[cube / 36], green: levels[cube / 6 % 6], blue: levels[cube % 6])
        }
        let grey = UInt8(8 + 10 * (index - 232))
        return RGBColor(red: grey, green: grey, blue: grey)
    }

    /// The 16 system colours (which terminals theme freely, so only used in 16-colour mode).
    public static let sixteen = XtermPalette(indices: Array(0..<16))
    /// The colour cube and grey ramp, 16...255, whose values every xterm-compatible terminal agrees on.
    public static let twoFiftySix = XtermPalette(indices: Array(16..<256))

    public let indices: [Int]
    let colors: [LinearColor]
    private let labs: [OKLab]

    init(indices: [Int]) {
        self.indices = indices
        colors = indices.map { Self.color(at: $0).linear }
        labs = colors.map(OKLab.init)
    }

    /// The position in `indices` of the entry nearest to `color` in OKLab.
    public func nearest(_ color: LinearColor) -> Int {
        let target = OKLab(color)
        var best = 0
        var bestDistance = Float.infinity
        for index in labs.indices {
            let distance = labs[index].distanceSquared(to: target)
            if distance < bestDistance {
                bestDistance = distance
                best = index
            }
        }
        return best
    }
}
