/// Decoded pixels as plain bytes: 8-bit sRGB red, green, blue and straight alpha, row by row.
///
/// The one pixel type that crosses from the codecs into the renderer, so neither side
/// needs to know the other's types.
public struct PixelBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes, RGBA, no row padding.
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0 && bytes.count == width * height * 4, "pixel buffer size mismatch")
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// A buffer of `width × height` pixels, all set to `red, green, blue, alpha`.
    public init(width: Int, height: Int, filledWith rgba: (UInt8, UInt8, UInt8, UInt8)) {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: bytes.count, by: 4) {
            bytes[index] = rgba.0
            bytes[index + 1] = rgba.1
            bytes[index + 2] = rgba.2
            bytes[index + 3] = rgba.3
        }
        self.init(width: width, height: height, bytes: bytes)
    }

    /// The pixel at column `x`, row `y` as (red, green, blue, alpha).
    public func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let index = (y * width + x) * 4
        return (bytes[index], bytes[index + 1], bytes[index + 2], bytes[index + 3])
    }
}
