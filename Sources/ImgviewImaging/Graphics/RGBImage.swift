/// An opaque image as 8-bit sRGB red, green, blue bytes: what the pixel encoders send.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes, row by row, no padding.
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0 && bytes.count == width * height * 3, "RGB image size mismatch")
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// `pixels` scaled to `width × height` by area in linear light, transparency composed over `background`.
    public init(scaling pixels: PixelBuffer, toWidth width: Int, height: Int, background: RGBColor) {
        let linear = AreaScaler(background: background).scale(pixels, toWidth: width, height: height)
        self.init(linear)
    }

    /// `linear` encoded as 8-bit sRGB.
    public init(_ linear: LinearImage) {
        var bytes = [UInt8](repeating: 0, count: linear.values.count)
        linear.values.withUnsafeBufferPointer { values in
            bytes.withUnsafeMutableBufferPointer { output in
                for index in 0..<values.count { output[index] = SRGB.byte(fromLinear: values[index]) }
            }
        }
        self.init(width: linear.width, height: linear.height, bytes: bytes)
    }

    public func color(x: Int, y: Int) -> RGBColor {
        let index = (y * width + x) * 3
        return RGBColor(red: bytes[index], green: bytes[index + 1], blue: bytes[index + 2])
    }
}
