import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Whether an image file ends where its own structure says it ends.
///
/// A body whose length the server did not announce (no Content-Length, or a compressed one) ends
/// when the connection closes, which is also what a server that dies mid-way looks like. Such a
/// body is only taken as whole when the image's structure is: a JPEG's segments and scans lead to
/// its EOI marker, a PNG's chunks to IEND, a GIF's blocks to its trailer, a RIFF (WebP) file is as
/// long as its header says, a BMP as long as its file header (or its pixel rows) say, an ISO media
/// file (AVIF, HEIC, a JPEG XL container) has its boxes whole and every item's data where `iloc`
/// puts it, an icon has every picture its directory lists, a QOI file has every pixel and its end
/// marker. TIFF, SVG and a bare JPEG XL codestream say nowhere in one place where they end: `unknown`.
public enum ImageCompleteness {
    public enum Verdict: Sendable, Equatable {
        case complete
        /// The file ends before its structure does.
        case truncated
        /// The structure does not say where the file ends (a BMP without sizes), or is not what the
        /// format's decoder would read anyway: the decoder judges it.
        case unknown
    }

    /// The verdict for the file at `url`, read as `format`, `windowSize` bytes at a time.
    public static func verdict(fileAt url: URL, format: ImageFormat, windowSize: Int = 1 << 20) -> Verdict {
        guard let reader = FileBytes(path: url.path, windowSize: windowSize) else { return .unknown }
        return verdict(reader, format: format)
    }

    /// The verdict for bytes in memory, read as `format`.
    public static func verdict(_ bytes: [UInt8], format: ImageFormat) -> Verdict {
        verdict(ArrayBytes(bytes), format: format)
    }

    /// The verdict for the bytes `reader` reads: the probe's, read to the end.
    public static func verdict(_ reader: some ByteReader, format: ImageFormat) -> Verdict {
        ImageProbe.read(reader, as: format, through: .whole).completeness ?? .unknown
    }
}
