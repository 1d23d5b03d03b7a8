#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes an image as a PNG file; implemented by the codecs module (libspng), so Core needs no C.
///
/// The kitty and iTerm2 protocols carry PNG: compressed, and a format every terminal decodes.
public protocol PNGEncoding: Sendable {
    func png(_ image: RGBImage) throws(PNGEncodingError) -> Data
}

/// Why a PNG could not be written.
public struct PNGEncodingError: Error, Sendable, Equatable {
    public var detail: String

    public init(detail: String) {
        self.detail = detail
    }
}
