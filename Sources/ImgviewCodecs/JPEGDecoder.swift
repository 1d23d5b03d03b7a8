import ImgviewImaging
import ImgviewSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes JPEG with libjpeg-turbo's libjpeg API at the smallest DCT scale that still covers
/// the size asked for, a few rows at a time so that a cancelled decode stops between rows.
///
/// CMYK and YCCK files are decoded as CMYK and converted to sRGB here, through their profile
/// (`ColorManagement.convertCMYK`). A file that ends early keeps
/// what decoded (libjpeg fills the rest with grey) and comes back with a warning; see
/// DECISIONS.md.
public struct JPEGDecoder: ImageDecoding {
    /// Whether a progressive file is decoded from every scan even where a reduced image cannot
    /// show what the last ones add: at 1/8 its DC scans alone are enough (`JPEGDCDecoder`), at
    /// 1/4 all but the refinement of luma's lowest AC bit (`JPEGSession.decodeRows`).
    let readsEveryScan: Bool

    /// How much of a progressive file's coefficients libjpeg keeps in memory when they and the
    /// output do not fit in `maxDecodeBytes` together; the rest waits in a temporary file.
    static let residentCoefficients = 16 << 20

    public init() {
        readsEveryScan = false
    }

    /// A decoder that reads every scan through libjpeg, to compare with (tests, benchmarks).
    init(readsEveryScan: Bool) {
        self.readsEveryScan = readsEveryScan
    }

    /// A probe read to the header that says the bytes ended there found no scan: nothing to show.
    public func inspect(_ bytes: Data, probe: ImageProbe) throws(ImageDecodingError) -> ImageHeader {
        if probe.completeness == .truncated { throw .truncated(.jpeg) }
        return try ImageHeader.from(probe)
    }

    public func decode(_ bytes: Data, header: ImageHeader, request: DecodeRequest) throws(ImageDecodingError) -> DecodedImage {
        let (width, height) = (header.storedWidth, header.storedHeight)
        try request.admit(width: width, height: height)
        if request.cancellation.isCancelled { throw .cancelled }
        // The minimum size is upright; the DCT scale applies to the stored image.
        let minimum = request.minimumSize.map { header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
        if request.allowsEmbeddedThumbnail, let minimum,
            let thumbnail = Self.embeddedThumbnail(in: bytes, width: width, height: height, covering: minimum, request.cancellation)
        {
            return DecodedImage(header: header, pixels: header.orientation.apply(to: thumbnail))
        }
        let eighths = Self.scaleInEighths(width: width, height: height, covering: minimum)
        // A progressive file at 1/8 scale needs only its DC coefficients: most of the file is skipped.
        if eighths == 1, !readsEveryScan, let fast = try JPEGDCDecoder.decode(bytes, cancellation: request.cancellation) {
            let warning = fast.warning.map { "damaged or truncated JPEG (\($0)); showing what could be decoded" }
            return DecodedImage(header: header, pixels: header.orientation.apply(to: fast.pixels), warning: warning)
        }
        let decodedRows: (PixelBuffer, String?, JPEGSession.Frame)
        do {
            decodedRows = try JPEGSession.with(bytes) { session throws(ImageDecodingError) in
                session.input = request.mappedInput
                let frame = try session.readHeader()
                // A progressive file's every coefficient, kept by libjpeg whatever the scale.
                let needed = session.coefficientBytes
                guard request.allowsDecodeBytes(needed) else {
                    throw .tooLargeToDecode(
                        what: "a progressive JPEG", width: frame.width, height: frame.height, bytes: needed, limit: request.maxDecodeBytes)
                }
                // Its output is made beside them: where both do not fit, the coefficients go to a
                // temporary file but for a window of them, else the output comes down to the scale
                // that covers what a pixel preview shows (DECISIONS.md, "Pixel previews at full screen").
                var scale = eighths
                let output = { (eighths: Int) in ((width * eighths + 7) / 8) * ((height * eighths + 7) / 8) * 4 }
                if needed > 0, !request.allowsDecodeBytes(needed + output(scale)),
                    !session.spillCoefficients(keeping: Self.residentCoefficients),
                    let smallest = request.smallestSize.map({ header.orientation.swapsAxes ? ($0.height, $0.width) : ($0.width, $0.height) }
                    )
                {
                    let least = Self.scaleInEighths(width: width, height: height, covering: smallest)
                    while scale > least, !request.allowsDecodeBytes(needed + output(scale)) { scale -= 1 }
                }
                let pixels = try session.decodeRows(
                    scaleInEighths: scale, cmyk: frame.isCMYK, skippingLowestBits: !readsEveryScan && scale <= 2,
                    cancellation: request.cancellation)
                return (pixels, session.warning, frame)
            }
        } catch .tooLargeToDecode(let what, let width, let height, let needed, let limit) {
            // Past the memory allowed, its DC scans alone still give an eighth of its size,
            // smaller than asked (blurred when enlarged), where libjpeg would hold them all.
            guard eighths > 1, !readsEveryScan, let fast = try JPEGDCDecoder.decode(bytes, cancellation: request.cancellation) else {
                throw .tooLargeToDecode(what: what, width: width, height: height, bytes: needed, limit: limit)
            }
            let warning = fast.warning.map { "damaged or truncated JPEG (\($0)); showing what could be decoded" }
            return DecodedImage(header: header, pixels: header.orientation.apply(to: fast.pixels), warning: warning)
        }
        let (decoded, problem, frame) = decodedRows
        var warning = problem.map { "damaged or truncated JPEG (\($0)); showing what could be decoded" }
        var stored = decoded
        guard frame.isCMYK else { return DecodedImage(header: header, pixels: header.orientation.apply(to: stored), warning: warning) }
        // Ink becomes sRGB here, through the file's own profile: colour management has nothing left to do.
        let profile = header.colorProfile ?? ColorProfileLocator.profile(in: bytes, format: .jpeg)
        if let note = ColorManagement.convertCMYK(&stored, inverted: frame.hasAdobeMarker, profile: profile) {
            warning = warning.map { "\($0); \(note)" } ?? note
        }
        return DecodedImage(header: header, pixels: header.orientation.apply(to: stored), warning: warning, colorProfile: .sRGB)
    }

    /// The pixels of the EXIF thumbnail of a `width × height` JPEG (stored axes), at the smallest
    /// scale that covers `minimum`, when it is smaller than the image, covers `minimum` and has the
    /// image's shape within 1 % (a camera's 160×120 of a 3:2 photo is letterboxed: not the picture);
    /// nil otherwise, or when it does not decode cleanly (the image is decoded instead).
    static func embeddedThumbnail(
        in bytes: Data, width: Int, height: Int, covering minimum: (width: Int, height: Int), _ cancellation: CancellationFlag
    ) -> PixelBuffer? {
        guard let range = ExifThumbnail.range(in: DataBytes(bytes)) else { return nil }
        let start = bytes.startIndex + range.lowerBound
        let thumbnail = Data(bytes[start..<(start + range.count)])
        return try? JPEGSession.with(thumbnail) { session throws(ImageDecodingError) -> PixelBuffer? in
            let frame = try session.readHeader()
            let sameShape = abs(frame.width * height - frame.height * width) <= max(frame.height * width / 100, 2 * max(width, height))
            guard sameShape, frame.width < width, frame.width >= minimum.width, frame.height >= minimum.height else { return nil }
            let eighths = scaleInEighths(width: frame.width, height: frame.height, covering: minimum)
            let pixels = try session.decodeRows(scaleInEighths: eighths, cmyk: frame.isCMYK, cancellation: cancellation)
            return session.warning == nil ? pixels : nil
        }
    }

    /// The smallest scale, in eighths (1...8), whose both sides reach `minimum`; 8 (full size) when none is asked.
    static func scaleInEighths(width: Int, height: Int, covering minimum: (Int, Int)?) -> Int {
        guard let (minimumWidth, minimumHeight) = minimum else { return 8 }
        // Only reductions: enlarging in the decoder costs memory and buys nothing.
        for eighths in 1...8 {
            let (scaledWidth, scaledHeight) = scaled(width: width, height: height, eighths: eighths)
            if scaledWidth >= minimumWidth, scaledHeight >= minimumHeight { return eighths }
        }
        return 8
    }

    /// The output size libjpeg gives for a scale of `eighths`/8 (it rounds up).
    static func scaled(width: Int, height: Int, eighths: Int) -> (Int, Int) {
        ((width * eighths + 7) / 8, (height * eighths + 7) / 8)
    }
}
