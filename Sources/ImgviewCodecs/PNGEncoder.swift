internal import CSPNG
import ImgviewImaging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes RGB images as PNG with libspng, for the pixel protocols that carry PNG (iTerm2's
/// always, kitty's when asked).
///
/// Tuned for speed over size: the image goes to a terminal once, so by default it is stored
/// unfiltered and uncompressed, as kitty's raw pixels are (DECISIONS.md).
public struct PNGEncoder: PNGEncoding {
    /// zlib's level, 0 (stored) to 9; rows are never filtered.
    public var compressionLevel: Int32

    public init(compressionLevel: Int32 = 0) {
        self.compressionLevel = compressionLevel
    }

    /// Why the encoder could not start, in a writer's words: a missing libspng is named as such,
    /// not as a failure to decode.
    static func startError(_ error: ImageDecodingError) -> PNGEncodingError {
        if case .libraryMissing(_, let library) = error { return PNGEncodingError(detail: library.summary) }
        return PNGEncodingError(detail: error.message)
    }

    public func png(_ image: RGBImage) throws(PNGEncodingError) -> Data {
        let spng: imgview_spng
        do { spng = try PNGLibrary.functions() } catch { throw Self.startError(error) }
        guard let context = spng.spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw PNGEncodingError(detail: "libspng could not start")
        }
        defer { spng.spng_ctx_free(context) }
        try check(spng.spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1))
        try check(spng.spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, compressionLevel))
        try check(spng.spng_set_option(context, SPNG_FILTER_CHOICE, Int32(SPNG_DISABLE_FILTERING.rawValue)))
        var header = spng_ihdr()
        header.width = UInt32(image.width)
        header.height = UInt32(image.height)
        header.bit_depth = 8
        header.color_type = UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue)
        try check(spng.spng_set_ihdr(context, &header))
        let status = image.bytes.withUnsafeBytes { bytes in
            spng.spng_encode_image(
                context, bytes.baseAddress, bytes.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue))
        }
        try check(status)
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng.spng_get_png_buffer(context, &length, &error) else { throw PNGEncodingError(detail: Self.text(error)) }
        // The buffer is ours to free once copied.
        defer { free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    private func check(_ status: Int32) throws(PNGEncodingError) {
        guard status == 0 else { throw PNGEncodingError(detail: Self.text(status)) }
    }

    /// A status comes from a library already open, so its words are there to be had.
    private static func text(_ status: Int32) -> String {
        guard let spng = try? PNGLibrary.functions(), let text = spng.spng_strerror(status) else { return "libspng error \(status)" }
        return String(cString: text)
    }
}
