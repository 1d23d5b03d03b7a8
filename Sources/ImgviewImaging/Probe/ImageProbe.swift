#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What an image file is, read once from its structure: the format, the stored size, the
/// orientation, whether it is animated and carries a colour profile, and, read to its end,
/// whether it is whole.
///
/// Made once per body — by the fetcher when a download ends (and stored in the cache entry), from
/// a local file or standard input when they are read — and handed to the decoder, which reads no
/// header the probe read already. One walk per format does it all: a JPEG's markers give the
/// frame size, the EXIF orientation, the ICC profile and the end; a PNG's chunks IHDR, eXIf, iCCP,
/// acTL and IEND; a GIF's blocks the canvas, the frames with their delays, the loop count and the
/// trailer. Every offset comes from the file, so every read is bounds-checked; anything malformed
/// means "unknown" (no size, upright, still), never a crash.
public struct ImageProbe: Sendable, Equatable, Codable {
    /// How far a probe reads.
    public enum Depth: Sendable {
        /// What comes before the image data: enough for everything but completeness (and a
        /// GIF's or WebP's frames, which its block walk gives anyway).
        case header
        /// To the end, to say whether the file is whole.
        case whole
    }

    public var format: ImageFormat
    /// The size as stored, before orientation; nil when the header does not say (SVG) or could
    /// not be read.
    public var storedSize: ImageDimensions?
    public var orientation: ImageOrientation
    /// Whether the file holds more than one frame to play.
    public var isAnimated: Bool
    /// Frames, one pass's duration and loops, where the structure says them (GIF, WebP, APNG);
    /// nil for a still, and for an animation whose frames only its decoder can count (AVIF).
    public var animation: AnimationSummary?
    /// Whether the file embeds a colour profile (ICC) or a colour description (CICP/nclx).
    public var hasColorProfile: Bool
    /// Whether the file ends where its structure says. Read only to `.header`, nil, or `.truncated`
    /// when the bytes ended inside the header, before any image data.
    public var completeness: ImageCompleteness.Verdict?

    public init(
        format: ImageFormat, storedSize: ImageDimensions? = nil, orientation: ImageOrientation = .up, isAnimated: Bool = false,
        animation: AnimationSummary? = nil, hasColorProfile: Bool = false, completeness: ImageCompleteness.Verdict? = nil
    ) {
        self.format = format
        self.storedSize = storedSize
        self.orientation = orientation
        self.isAnimated = isAnimated
        self.animation = animation
        self.hasColorProfile = hasColorProfile
        self.completeness = completeness
    }

    private enum CodingKeys: String, CodingKey {
        case format, storedSize, orientation, isAnimated, animation, hasColorProfile
    }

    /// The size as the user sees it, orientation applied.
    public var uprightSize: ImageDimensions? {
        guard let storedSize else { return nil }
        return orientation.swapsAxes ? ImageDimensions(width: storedSize.height, height: storedSize.width) : storedSize
    }

    // MARK: Reading

    /// The probe of the image in `bytes`, nil when they do not start like an image.
    public static func read(_ bytes: some ByteReader, through depth: Depth = .header) -> ImageProbe? {
        guard let format = ImageFormat.sniff(bytes.bytes(at: 0, count: ImageFormat.sniffLength)) else { return nil }
        return read(bytes, as: format, through: depth)
    }

    /// The probe of `bytes` read as `format`, whatever their first bytes say (for a body cut
    /// inside its signature, whose format is known from before).
    public static func read(_ bytes: some ByteReader, as format: ImageFormat, through depth: Depth) -> ImageProbe {
        var probe = ImageProbe(format: format)
        switch format {
        case .jpeg: probe.readJPEG(bytes, through: depth)
        case .png: probe.readPNG(bytes, through: depth)
        case .gif: probe.readGIF(bytes)
        case .webp: probe.readWebP(bytes)
        case .avif, .heic: probe.readISOMedia(bytes, through: depth)
        case .bmp: probe.readBMP(bytes, through: depth)
        case .tiff: probe.readTIFF(bytes, through: depth)
        case .qoi: probe.readQOI(bytes, through: depth)
        case .ico: probe.readIcon(bytes, through: depth)
        case .jxl: probe.readJPEGXL(bytes, through: depth)
        case .svg: probe.completeness = depth == .whole ? .unknown : nil  // lengths with units, or only a viewBox: no pixel size
        }
        if let size = probe.storedSize, size.width <= 0 || size.height <= 0 { probe.storedSize = nil }
        // Read to `.header`, only a cut before the header ended is certain.
        if depth == .header, probe.completeness != .truncated { probe.completeness = nil }
        return probe
    }

    /// The probe of the image in `data`.
    public static func read(_ data: Data, through depth: Depth = .header) -> ImageProbe? {
        read(DataBytes(data), through: depth)
    }

    /// How much of a file a probe reads at a time: a header's markers and chunks, EXIF included,
    /// fit in one such window, so a photograph's probe is one read, not a megabyte's.
    public static let fileWindowSize = 64 << 10

    /// The probe of the image in the file at `url`, nil when it cannot be read or is not an image.
    public static func read(fileAt url: URL, through depth: Depth = .header) -> ImageProbe? {
        FileBytes(path: url.path, windowSize: fileWindowSize).flatMap { read($0, through: depth) }
    }
}
