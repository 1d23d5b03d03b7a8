import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns the bytes of an image file into upright pixels; implemented by the codecs module.
///
/// Implementations sniff the format from the bytes, refuse a declared size above
/// `request.maxPixelCount` before allocating anything large, may decode at a reduced scale as
/// long as the result still covers `request.minimumSize`, keep an animation's frames within
/// `request.animationLimits`, and stop with `.cancelled` between rows, scans or frames once
/// `request.cancellation` is set.
/// Decoding is synchronous, heavy work: the preview pipeline runs it on its worker threads.
public protocol ImageDecoding: Sendable {
    /// The header a decode works from: the probe's facts (read once, when the bytes arrived),
    /// completed where only the format's library can tell (an AVIF sequence's frames).
    func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader
    /// The pixels, orientation applied; `header` is what `inspect` read from these same bytes.
    func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage
    /// A decoder for an image of `format` whose bytes are still arriving; nil when the format
    /// shows nothing worth seeing before it is whole.
    func makeProgressiveDecoder(for format: ImageFormat, sizing: @escaping ProgressiveSizing) -> (any ProgressiveImageDecoder)?
    /// Whether `inspect` of an image of `format` reads no more than its headers (the probe's facts,
    /// a colour profile), cheap enough to run where the bytes are rather than on a worker thread.
    func inspectsHeadersOnly(_ format: ImageFormat) -> Bool
}

extension ImageDecoding {
    public func makeProgressiveDecoder(for format: ImageFormat, sizing: @escaping ProgressiveSizing) -> (any ProgressiveImageDecoder)? {
        nil
    }

    public func inspectsHeadersOnly(_ format: ImageFormat) -> Bool {
        false
    }

    /// Probes `bytes`, then reads the header: for callers that hold only the bytes.
    public func inspect(_ bytes: Data) throws(ImageDecodingError) -> ImageHeader {
        try inspect(bytes, probe: ImageProbe.probing(bytes))
    }

    /// Reads the header, then decodes: for callers that have not inspected the bytes yet.
    public func decode(_ bytes: Data, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        try decode(bytes, header: inspect(bytes), request: request)
    }
}

extension ImageProbe {
    /// The probe of `bytes`, or why they are no image at all.
    public static func probing(_ bytes: Data) throws(ImageDecodingError) -> ImageProbe {
        if bytes.isEmpty { throw .empty }
        guard let probe = read(bytes) else { throw .notAnImage }
        return probe
    }
}

/// What a caller needs from a decode: how many pixels it will use, and how many it will allow.
public struct DecodeRequest: Sendable, Equatable {
    /// The default refusal threshold: 100 megapixels is 400 MB of RGBA.
    public static let defaultMaxPixelCount = 100_000_000
    /// The default bound on what a decode may hold at the image's full size: 72 MB, so that
    /// any file decodes within 100 MB at the defaults in the release binary, and a 12 MP HEIC
    /// or JPEG XL, which libheif and libjxl decode only whole, still does (DECISIONS.md,
    /// "Decoders' memory follows the output", "HEIC and JPEG XL counted against maxDecodeBytes").
    public static let defaultMaxDecodeBytes = 72_000_000

    /// The upright size the caller will scale down to; nil means full size.
    public var minimumSize: (width: Int, height: Int)?
    /// The least a decoder whose library holds the whole image may come down to when an output
    /// of `minimumSize` does not fit beside it (`PixelReducer.factor(…beside:…)`): a pixel
    /// preview asks for room over what it shows and needs only what it shows. Nil: `minimumSize`.
    public var smallestSize: (width: Int, height: Int)?
    /// Images whose header declares more pixels than this are refused before decoding; for an
    /// animation, this bounds its canvas (every frame is composed at that size).
    public var maxPixelCount: Int
    /// Bytes a decode may hold at the image's full size where its library can work neither row
    /// by row nor at a reduced scale: a lossless WebP's pixels, an AVIF's planes, an animation's
    /// full-size canvases. A file that needs more is refused (`tooLargeToDecode`), or, for an
    /// animation's canvas, shows its first frame only.
    public var maxDecodeBytes: Int
    /// How many frames of an animation to keep, and how much work and memory they may take.
    public var animationLimits: AnimationLimits
    /// Whether an animation's later frames are wanted; false decodes the first frame only, for
    /// output that cannot play it (a pipe, a contact sheet's cell).
    public var animates: Bool
    /// Set when nobody waits for the pixels any more; checked between rows or scans.
    public var cancellation: CancellationFlag
    /// Which page of a file of several (`ImageHeader.pageCount`), from 0; past the last, the last.
    public var page: Int
    /// Whether a thumbnail the file embeds for other programs (a JPEG's EXIF thumbnail) may stand
    /// in for the image when it covers `minimumSize` and has its shape: for a thumbnail (a grid's
    /// cell, a contact sheet), where a stale or soft one costs little, never for the image itself.
    public var allowsEmbeddedThumbnail: Bool
    /// The mapping the bytes are read from when they are a large file's (`MappedFile`), so that
    /// what the decoder has read can leave memory as it goes (`releaseReadInput`).
    public var mappedInput: MappedFile?

    /// `maxDecodeBytes` nil is the default bound, raised in proportion with a pixel limit above
    /// the default one: whoever allows more pixels allows their memory too.
    public init(
        minimumSize: (width: Int, height: Int)? = nil, smallestSize: (width: Int, height: Int)? = nil,
        maxPixelCount: Int = defaultMaxPixelCount, maxDecodeBytes: Int? = nil,
        animationLimits: AnimationLimits = .default, animates: Bool = true, cancellation: CancellationFlag = CancellationFlag(),
        page: Int = 0, allowsEmbeddedThumbnail: Bool = false, mappedInput: MappedFile? = nil
    ) {
        self.minimumSize = minimumSize
        self.smallestSize = smallestSize
        self.maxPixelCount = maxPixelCount
        self.maxDecodeBytes = maxDecodeBytes ?? Self.decodeBytes(allowing: maxPixelCount)
        self.animationLimits = animationLimits
        self.animates = animates
        self.cancellation = cancellation
        self.page = max(0, page)
        self.allowsEmbeddedThumbnail = allowsEmbeddedThumbnail
        self.mappedInput = mappedInput
    }

    /// Lets the pages of a mapped input read so far leave memory: called by decoders that read
    /// their bytes front to back, between rows or scans, beside the cancellation check. Pages
    /// read again come back from the page cache, so a decoder that looks back loses nothing.
    public func releaseReadInput() {
        mappedInput?.releaseResidentPages()
    }

    /// The full-size memory a pixel limit of `maxPixelCount` allows: the default, or more in proportion.
    public static func decodeBytes(allowing maxPixelCount: Int) -> Int {
        guard maxPixelCount > defaultMaxPixelCount else { return defaultMaxDecodeBytes }
        let (scaled, overflow) = defaultMaxDecodeBytes.multipliedReportingOverflow(by: maxPixelCount / 1_000_000)
        return overflow ? Int.max : scaled / (defaultMaxPixelCount / 1_000_000)
    }

    /// Whether `bytes` of full-size buffers fit in `maxDecodeBytes`.
    public func allowsDecodeBytes(_ bytes: Int) -> Bool {
        bytes >= 0 && bytes <= maxDecodeBytes
    }

    public static func == (lhs: DecodeRequest, rhs: DecodeRequest) -> Bool {
        lhs.minimumSize?.width == rhs.minimumSize?.width && lhs.minimumSize?.height == rhs.minimumSize?.height
            && lhs.smallestSize?.width == rhs.smallestSize?.width && lhs.smallestSize?.height == rhs.smallestSize?.height
            && lhs.maxPixelCount == rhs.maxPixelCount && lhs.maxDecodeBytes == rhs.maxDecodeBytes
            && lhs.animationLimits == rhs.animationLimits && lhs.animates == rhs.animates && lhs.page == rhs.page
            && lhs.allowsEmbeddedThumbnail == rhs.allowsEmbeddedThumbnail
    }
}

/// What an image's header says, without decoding the pixels.
public struct ImageHeader: Sendable, Equatable {
    public var format: ImageFormat
    /// The size as stored, before orientation.
    public var storedWidth: Int
    public var storedHeight: Int
    public var orientation: ImageOrientation
    /// Frames, duration and loops of an animated image; nil for a still (one frame).
    public var animation: AnimationSummary?
    /// Pages of a file that holds several pictures shown one at a time (a scanned document as
    /// TIFF, a HEIF collection); 1 for every other image. Size and orientation are the first page's.
    public var pageCount: Int
    /// A vector image (SVG), drawn at whatever size is asked: its stored size is then only its
    /// shape, at `scalableSide` pixels on its longer side, the most it is ever drawn at, so that
    /// every stage sizes, fits and zooms it as an image that large; `naturalSize` is its own.
    public var isScalable = false
    /// A vector image's own size in CSS pixels, rounded, when it declares one (`info` shows it).
    public var naturalSize: ImageDimensions?

    /// The colour space the file declares, read at `inspect` where the format keeps it before its
    /// pixels (JPEG APP2, PNG iCCP, WebP ICCP, TIFF's tag, HEIF's `colr`); nil for none (sRGB)
    /// or a format whose decoder finds it only while decoding (`DecodedImage.colorProfile`).
    public var colorProfile: EmbeddedColorProfile?

    /// The longer side of a vector image's stored size: the largest it is drawn at.
    public static let scalableSide = 8192

    public init(
        format: ImageFormat, storedWidth: Int, storedHeight: Int, orientation: ImageOrientation, animation: AnimationSummary? = nil,
        pageCount: Int = 1
    ) {
        self.format = format
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        self.orientation = orientation
        self.animation = animation
        self.pageCount = pageCount
    }

    /// The header the probe read; nil when it found no size.
    public init?(probe: ImageProbe) {
        guard let size = probe.storedSize else { return nil }
        self.init(
            format: probe.format, storedWidth: size.width, storedHeight: size.height, orientation: probe.orientation,
            animation: probe.animation)
    }

    /// The header of `probe`, or the error a decoder of its format gives when the probe found no
    /// size: the file was cut inside its header, or the header is not there.
    public static func from(_ probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        if let header = ImageHeader(probe: probe) { return header }
        throw probe.completeness == .truncated ? .truncated(probe.format) : .corrupt(probe.format, detail: "no usable image header")
    }

    /// The size as the user sees it, orientation applied.
    public var uprightSize: (width: Int, height: Int) {
        orientation.swapsAxes ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
    }
}

/// Upright pixels and what is known about how they were obtained.
public struct DecodedImage: Sendable, Equatable {
    public var header: ImageHeader
    /// Upright, possibly smaller than the image when the decoder scaled while decoding.
    public var pixels: PixelBuffer
    /// Set when the data ended early or was damaged and only part of the image is real, or
    /// when an animation's limits left frames out.
    public var warning: String?
    /// The frames of an animated image (at least two), `pixels` being the first; nil for a still.
    public var animation: Animation?
    /// The colour space the file declares, for colour management to convert from; nil for sRGB
    /// or a file that declares none. Set by the decoders that read it (see `EmbeddedColorProfile`).
    public var colorProfile: EmbeddedColorProfile?
    /// Which page these pixels are (`DecodeRequest.page`); `header` then describes that page.
    public var page = 0
    /// Set when an animation's later frames were left out because the request did not want them
    /// (`DecodeRequest.animates`): a request that animates must decode again.
    public var isFirstFrameOnly = false

    public init(
        header: ImageHeader, pixels: PixelBuffer, warning: String? = nil, animation: Animation? = nil,
        colorProfile: EmbeddedColorProfile? = nil
    ) {
        self.header = header
        self.pixels = pixels
        self.warning = warning
        self.animation = animation
        self.colorProfile = colorProfile
    }

    /// Bytes of pixels held: the first frame (`pixels`) and every other frame of an animation.
    public var pixelByteCount: Int {
        pixels.bytes.count + (animation?.frames.dropFirst().reduce(0) { $0 + $1.pixels.bytes.count } ?? 0)
    }
}
