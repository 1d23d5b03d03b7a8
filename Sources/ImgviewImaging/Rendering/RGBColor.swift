/// A colour in linear-light RGB, each channel 0...1, which is where averaging and mixing are correct.
public struct LinearColor: Sendable, Equatable {
    public var red: Float
    public var green: Float
    public var blue: Float

    public init(red: Float, green: Float, blue: Float) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let black = LinearColor(red: 0, green: 0, blue: 0)
    public static let white = LinearColor(red: 1, green: 1, blue: 1)

    /// Relative luminance (Rec. 709 weights).
    public var luminance: Float { 0.2126 * red + 0.7152 * green + 0.0722 * blue }

    /// The colour as 8-bit sRGB.
    public var rgb: RGBColor {
        RGBColor(red: SRGB.byte(fromLinear: red), green: SRGB.byte(fromLinear: green), blue: SRGB.byte(fromLinear: blue))
    }
}

/// A colour as a terminal receives it: 8-bit sRGB.
public struct RGBColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public var linear: LinearColor {
        LinearColor(red: SRGB.toLinear[Int(red)], green: SRGB.toLinear[Int(green)], blue: SRGB.toLinear[Int(blue)])
    }

    /// Parses `#rrggbb` or `rrggbb`.
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }
}
