#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes an image while its bytes are still arriving, for previews that sharpen as they come.
///
/// One decoder follows one download: each `update` gets every byte received so far (the same
/// bytes as last time and more after them) and returns a picture when what arrived adds
/// something worth showing — a progressive JPEG's next scan, a baseline JPEG's next rows, an
/// interlaced PNG's next pass — or nil. The pictures are upright, at the scale the `sizing`
/// request given to the decoder asks for, the part not yet arrived transparent or grey.
public protocol ProgressiveImageDecoder: AnyObject {
    func update(with prefix: Data) throws(ImageDecodingError) -> DecodedImage?
}

/// How a progressive decoder decides what to decode once it has read the header.
public typealias ProgressiveSizing = @Sendable (ImageHeader) -> DecodeRequest
