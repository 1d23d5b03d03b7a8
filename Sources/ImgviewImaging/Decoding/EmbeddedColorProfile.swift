/// The colour space a file declares for its pixels, as the file stores it: what a decoder hands
/// to colour management, which converts the pixels to sRGB.
///
/// Decoders read it where their format keeps it (an ICC profile, or code points) and attach it to
/// the decoded image unconverted; nil means the file declares nothing, so sRGB.
public enum EmbeddedColorProfile: Sendable, Hashable {
    /// An ICC profile's bytes, unparsed.
    case icc([UInt8])
    /// Coding-independent code points (ITU-T H.273): colour primaries, transfer characteristics,
    /// matrix coefficients and whether the values use the full range.
    case cicp(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)

    /// sRGB itself: what a decoder that converted its pixels on its own (a CMYK JPEG, through
    /// its profile) says they are now, so that colour management leaves them alone.
    public static let sRGB = EmbeddedColorProfile.cicp(primaries: 1, transfer: 13, matrix: 0, fullRange: true)

    /// sRGB primaries with a linear transfer: QOI's colour space 1 ("all channels linear").
    public static let linearSRGB = EmbeddedColorProfile.cicp(primaries: 1, transfer: 8, matrix: 0, fullRange: true)
}
