/// How a stored image must be turned to stand upright: the eight EXIF Orientation values.
public enum ImageOrientation: Int, Sendable, CaseIterable, Codable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether the upright image is the stored one turned a quarter, so width and height trade places.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The EXIF name users see in `info`.
    public var exifDescription: String {
        switch self {
        case .up: "1 (upright)"
        case .upMirrored: "2 (mirrored)"
        case .down: "3 (rotated 180°)"
        case .downMirrored: "4 (flipped vertically)"
        case .leftMirrored: "5 (transposed)"
        case .right: "6 (rotated 90° clockwise to view)"
        case .rightMirrored: "7 (transversed)"
        case .left: "8 (rotated 90° counter-clockwise to view)"
        }
    }

    /// `pixels` turned upright.
    public func apply(to pixels: PixelBuffer) -> PixelBuffer {
        if self == .up { return pixels }
        let (sourceWidth, sourceHeight) = (pixels.width, pixels.height)
        let (width, height) = swapsAxes ? (sourceHeight, sourceWidth) : (sourceWidth, sourceHeight)
        var output = [UInt8](repeating: 0, count: width * height * 4)
        pixels.bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 0..<height {
                    for x in 0..<width {
                        // Where the upright pixel (x, y) sits in the stored image.
                        let (sx, sy): (Int, Int)
                        switch self {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (sourceWidth - 1 - x, y)
                        case .down: (sx, sy) = (sourceWidth - 1 - x, sourceHeight - 1 - y)
                        case .downMirrored: (sx, sy) = (x, sourceHeight - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, sourceHeight - 1 - x)
                        case .rightMirrored: (sx, sy) = (sourceWidth - 1 - y, sourceHeight - 1 - x)
                        case .left: (sx, sy) = (sourceWidth - 1 - y, x)
                        }
                        let from = (sy * sourceWidth + sx) * 4
                        let to = (y * width + x) * 4
                        destination[to] = source[from]
                        destination[to + 1] = source[from + 1]
                        destination[to + 2] = source[from + 2]
                        destination[to + 3] = source[from + 3]
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, bytes: output)
    }
}
