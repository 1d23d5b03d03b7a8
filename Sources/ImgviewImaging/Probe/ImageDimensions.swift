#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An image's pixel size.
///
/// The disk cache records the upright size with each entry (in its probe) so that `cache ls`
/// can show it without decoding anything; `read` is the probe's upright size, for callers that
/// want only that.
public struct ImageDimensions: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The upright size of the image in `bytes` (a whole file, or at least its first bytes), nil
    /// when not understood.
    public static func read(_ bytes: [UInt8]) -> ImageDimensions? {
        ImageProbe.read(ArrayBytes(bytes))?.uprightSize
    }

    /// The upright size of the image in `data`.
    public static func read(_ data: Data) -> ImageDimensions? {
        ImageProbe.read(data)?.uprightSize
    }

    /// The upright size of the image in the file at `url`.
    public static func read(fileAt url: URL) -> ImageDimensions? {
        ImageProbe.read(fileAt: url)?.uprightSize
    }
}
